"""The scalar dashboard's routes (``/data/plugin/scalars/``): thin wrappers over :mod:`.query`."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, current_app

from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.plugins import web
from tbkit.plugins.patterns import ClientPattern, compile_client
from tbkit.plugins.scalars import groups as run_groups
from tbkit.plugins.scalars import query
from tbkit.plugins.scalars.aggregate import HPARAM_PREFIX
from tbkit.plugins.scalars.metadata import PLUGIN_NAME
from tbkit.plugins.scalars.params import MAX_POINTS, chart_options
from tbkit.plugins.scalars.payloads import PayloadCache, version_of_columns

__all__ = ["MAX_POINTS", "TABS", "blueprint"]  # MAX_POINTS: see tbkit.plugins.scalars.params

TABS = (web.Tab("scalars", "Scalars", (PLUGIN_NAME,)),)

_PAYLOADS = "tbkit.scalars.payloads"  # the app's PayloadCache, in app.extensions

blueprint = Blueprint("scalars", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    listing = web.provider().list_scalars(PLUGIN_NAME)
    return web.json_response(
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
    """``tag``'s columns for ``runs`` (None: every run); a 404 when no run at all has it.

    Whether another run has the tag is asked of the same one-tag read, not of a listing of
    every series (which took 45 ms at 10,000 tags, for every unknown tag asked).
    """
    provider = web.provider()
    found = query.scalar_columns(provider, PLUGIN_NAME, tag, runs)
    if not found and (runs is None or not query.scalar_columns(provider, PLUGIN_NAME, tag, None)):
        raise NotFoundError(f"no scalar tag {tag!r}")
    return found


@blueprint.route("/scalars", methods=["GET", "POST"])
def scalars() -> Response:
    """One tag's series for several runs (all that have it by default), one JSON object by run.

    One read of the columns for every run asked; each run's answer is encoded from its
    NumPy columns (:func:`query.series_json`), or taken from the cache while the series
    is unchanged (same point count and last point).
    """
    args = dict(web.params())
    tag = web.str_param(args, "tag")
    runs = web.runs_param(args)
    options = chart_options(args)
    params = tuple(options.values())
    cache = _cache()
    body = []
    for run, columns in sorted(_columns(tag, runs).items()):
        key = PayloadCache.key(run, tag, params)
        version = version_of_columns(*columns)
        part = cache.get(key, version)
        if part is None:
            part = query.series_json(columns, **options)
            cache.put(key, version, part)
        body.append(web.json_bytes(run) + b":" + part)
    return Response(b"{" + b",".join(body) + b"}", mimetype="application/json")


def _cache() -> PayloadCache:
    return current_app.extensions.setdefault(_PAYLOADS, PayloadCache())


def _group_by(args: Mapping[str, Any]) -> str | ClientPattern | dict[str, str]:
    """``groups`` (``{run: group}`` or its JSON text), else ``group_by`` (a regex or ``hparam:NAME``)."""
    mapping = args.get("groups")
    if mapping not in (None, ""):
        if isinstance(mapping, str):
            try:
                mapping = json.loads(mapping)
            except ValueError:
                raise InvalidArgumentError("parameter 'groups' must be a JSON object {run: group}") from None
        if not isinstance(mapping, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()
        ):
            raise InvalidArgumentError("parameter 'groups' must be a JSON object {run: group}")
        return mapping
    if args.get("group_by") in (None, ""):
        raise InvalidArgumentError("give 'group_by' (a regex or hparam:NAME) or 'groups' ({run: group})")
    by = web.str_param(args, "group_by")
    return by if by.startswith(HPARAM_PREFIX) else compile_client(by, "group_by")


def _group_rows(args: Mapping[str, Any]) -> tuple[Any, dict[str, list[str]], dict[str, str]]:
    """The group rows of the request's tag and runs, the members, and the options used."""
    tag = web.str_param(args, "tag")
    runs = web.runs_param(args)
    stat = web.str_param(args, "stat", default="mean")
    band = web.str_param(args, "band", default="std")
    if stat not in ("mean", "median"):
        raise InvalidArgumentError(f"stat must be mean or median, got {stat!r}")
    if band not in ("std", "minmax"):
        raise InvalidArgumentError(f"band must be std or minmax, got {band!r}")
    by = _group_by(args)
    _columns(tag, runs)  # 404 for an unknown tag
    rows, members = run_groups.group_frame(web.provider(), PLUGIN_NAME, tag, runs, by, stat=stat, band=band)
    return rows, members, {"tag": tag, "stat": stat, "band": band}


@blueprint.route("/groups", methods=["GET", "POST"])
def groups() -> Response:
    args = dict(web.params())
    options = chart_options(args)
    rows, members, _ = _group_rows(args)
    answer = {}
    colors = web.group_colors(str(g) for g in rows["group"].unique())
    for group, part in rows.groupby("group", sort=True):
        answer[str(group)] = {
            "color": colors[str(group)],
            "members": members.get(str(group), []),
            **run_groups.group_payload(part, **options),
        }
    return web.json_response(answer)


@blueprint.route("/groups_download", methods=["GET", "POST"])
def groups_download() -> Response:
    args = dict(web.params())
    fmt = web.str_param(args, "format", default="csv")
    if fmt not in ("csv", "json"):
        raise InvalidArgumentError(f"format must be csv or json, got {fmt!r}")
    rows, _, options = _group_rows(args)
    name = query.safe_path(options["tag"]).replace("/", "_") + f"_groups_{options['stat']}_{options['band']}"
    if fmt == "csv":
        return _attachment(
            rows.to_csv(index=False, float_format=lambda v: repr(float(v))), f"{name}.csv", "text/csv"
        )
    records = [
        {k: (v if not isinstance(v, float) or math.isfinite(v) else None) for k, v in record.items()}
        for record in rows.astype({"tag": str}).to_dict("records")
    ]
    body = json.dumps(records, separators=(",", ":"), allow_nan=False, default=int)
    return _attachment(body, f"{name}.json", "application/json")


@blueprint.get("/group_options")
def group_options() -> Response:
    return web.json_response({"hparams": run_groups.hparam_names(web.provider())})


def _attachment(body: str | bytes, filename: str, mimetype: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers.set("Content-Disposition", "attachment", filename=filename)
    return response


@blueprint.get("/download")
def download() -> Response:
    args = dict(web.params())
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    fmt = web.str_param(args, "format", default="csv")
    if fmt not in ("csv", "json"):
        raise InvalidArgumentError(f"format must be csv or json, got {fmt!r}")
    web.known_runs([run])
    found = _columns(tag, [run])
    if run not in found:
        raise NotFoundError(f"run {run!r} has no scalar tag {tag!r}")
    name = query.safe_path(run, tag).replace("/", "_")
    if fmt == "csv":
        return _attachment(query.to_csv(found[run]), f"{name}.csv", "text/csv")
    return _attachment(query.to_json_rows(found[run]), f"{name}.json", "application/json")


@blueprint.get("/download_all")
def download_all() -> Response:
    args = dict(web.params())
    run_pattern = web.regex_param(args, "runs")
    tag_pattern = web.regex_param(args, "tags")

    def keep(run: str, tag: str) -> bool:
        runs_ok = run_pattern is None or run_pattern.search(run) is not None
        return runs_ok and (tag_pattern is None or tag_pattern.search(tag) is not None)

    found = query.all_scalar_columns(web.provider(), PLUGIN_NAME, keep)
    entries = [(run, tag, found[run, tag]) for run, tag in sorted(found)]
    return _attachment(query.zip_of_csv(entries), "scalars.zip", "application/zip")
