"""The scalar dashboard's routes (``/data/plugin/scalars/``): thin wrappers over :mod:`.query`."""

from __future__ import annotations

from flask import Blueprint, Response

from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.plugins import _web
from tbkit.plugins.scalars import query
from tbkit.plugins.scalars.metadata import PLUGIN_NAME

__all__ = ["MAX_POINTS", "TABS", "blueprint"]

TABS = (_web.Tab("scalars", "Scalars", (PLUGIN_NAME,)),)
DEFAULT_POINTS = 1000
MAX_POINTS = 10000

blueprint = Blueprint("scalars", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    listing = _web.provider().list_scalars(PLUGIN_NAME)
    return _web.json_response(
        {
            run: {
                tag: {
                    "display_name": meta.display_name,
                    "description": meta.description,
                    "max_step": meta.max_step,
                    "last_value": meta.last_value,
                }
                for tag, meta in series.items()
            }
            for run, series in listing.items()
        }
    )


def _columns(tag: str, runs: list[str] | None) -> dict[str, query.Columns]:
    found = query.scalar_columns(_web.provider(), PLUGIN_NAME, tag, runs)
    if not found and tag not in {t for r in _web.provider().list_scalars(PLUGIN_NAME).values() for t in r}:
        raise NotFoundError(f"no scalar tag {tag!r}")
    return found


@blueprint.route("/scalars", methods=["GET", "POST"])
def scalars() -> Response:
    args = dict(_web.params())
    tag = _web.str_param(args, "tag")
    runs = _web.runs_param(args)
    default = _web.samples(PLUGIN_NAME, DEFAULT_POINTS) or MAX_POINTS
    points = _web.int_param(args, "points", default=min(default, MAX_POINTS), low=1, high=MAX_POINTS)
    smoothing = _web.float_param(args, "smoothing", default=0.0, low=0.0, high=1.0, high_open=True)
    min_step = _web.int_param(args, "min_step", default=None)
    max_step = _web.int_param(args, "max_step", default=None)
    if min_step is not None and max_step is not None and min_step > max_step:
        raise InvalidArgumentError(f"min_step ({min_step}) is larger than max_step ({max_step})")
    found = _columns(tag, runs)
    answer = {
        run: query.series_payload(
            columns,
            points=int(points or DEFAULT_POINTS),
            smoothing=smoothing,
            min_step=min_step,
            max_step=max_step,
        )
        for run, columns in sorted(found.items())
    }
    return _web.json_response(answer)


def _attachment(body: str | bytes, filename: str, mimetype: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers.set("Content-Disposition", "attachment", filename=filename)
    return response


@blueprint.get("/download")
def download() -> Response:
    args = dict(_web.params())
    run = _web.str_param(args, "run")
    tag = _web.str_param(args, "tag")
    fmt = _web.str_param(args, "format", default="csv")
    if fmt not in ("csv", "json"):
        raise InvalidArgumentError(f"format must be csv or json, got {fmt!r}")
    _web.known_runs([run])
    found = _columns(tag, [run])
    if run not in found:
        raise NotFoundError(f"run {run!r} has no scalar tag {tag!r}")
    name = query.safe_path(run, tag).replace("/", "_")
    if fmt == "csv":
        return _attachment(query.to_csv(found[run]), f"{name}.csv", "text/csv")
    return _attachment(query.to_json_rows(found[run]), f"{name}.json", "application/json")


@blueprint.get("/download_all")
def download_all() -> Response:
    args = dict(_web.params())
    run_pattern = _web.regex_param(args, "runs")
    tag_pattern = _web.regex_param(args, "tags")

    def keep(run: str, tag: str) -> bool:
        runs_ok = run_pattern is None or run_pattern.search(run) is not None
        return runs_ok and (tag_pattern is None or tag_pattern.search(tag) is not None)

    found = query.all_scalar_columns(_web.provider(), PLUGIN_NAME, keep)
    entries = [(run, tag, found[run, tag]) for run, tag in sorted(found)]
    return _attachment(query.zip_of_csv(entries), "scalars.zip", "application/zip")
