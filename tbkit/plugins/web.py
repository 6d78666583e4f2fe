"""The route kit: what a plugin's ``routes.py`` uses to answer requests; public, for third-party plugins too.

A route module is a Flask blueprint the server mounts under ``/data/plugin/<name>/``, plus
``TABS`` (the dashboards it serves, as :class:`Tab` values). Its handlers stay thin: parse
the request with this kit, compute the answer with a plain function over the
:class:`~tbkit.provider.DataProvider`, and answer with :func:`json_response`. The kit gives:

* the app's state: :func:`provider` (the only door to the data), :func:`samples` (the
  points per series ``--samples_per_plugin`` asks for), :func:`state`;
* parsing: :func:`params` (query string merged with a JSON body), :func:`str_param`,
  :func:`int_param`, :func:`float_param`, :func:`regex_param`, :func:`runs_param`,
  :func:`known_runs`; they raise :class:`~tbkit.errors.InvalidArgumentError` (400) or
  :class:`~tbkit.errors.NotFoundError` (404), which the server maps to responses in one place;
* reads shared by kinds: :func:`read_blob_series`, :func:`sampled_blob_series`,
  :func:`tensor_tags`, :func:`blob_response`;
* answers: :func:`json_response` and :func:`json_bytes` (safe to embed: ``<``, ``>``, ``&``
  escaped; non-finite floats as null);
* colours, the same in every dashboard (the rule is :mod:`tbkit.plugins.colors`'):
  :func:`run_colors` / :func:`run_color` (a run's, kept for the server's lifetime),
  :func:`group_colors` (the scalars dashboard's run groups) and :func:`series_colors`
  (any other set of series drawn together).

Imported only by route modules (which only the server imports), so ``import tbkit``
never pulls in Flask. A plugin imports the provider, the record layer, protos, errors
and this kit, never the reader, the server or the writer (``tests/test_architecture.py``).

Example:
    >>> int_param({"points": "50"}, "points", default=10, low=1, high=100)
    50

A route module, in full::

    from flask import Blueprint, Response

    from tbkit.plugins import web

    TABS = (web.Tab("confusion", "Confusion", ("confusion",)),)
    blueprint = Blueprint("confusion", __name__)

    @blueprint.get("/tags")
    def tags() -> Response:
        return web.tensor_tags("confusion")
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
from flask import Response, current_app, request

from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.plugins import colors as _colors
from tbkit.plugins.patterns import ClientPattern, compile_client
from tbkit.provider import BlobSequenceDatum, DataProvider, RunTagFilter

__all__ = [
    "EXTENSION",
    "AppState",
    "Tab",
    "blob_response",
    "float_param",
    "group_colors",
    "int_param",
    "json_bytes",
    "json_response",
    "known_runs",
    "params",
    "provider",
    "read_blob_series",
    "regex_param",
    "run_color",
    "run_colors",
    "runs_param",
    "sampled_blob_series",
    "samples",
    "series_colors",
    "state",
    "str_param",
    "tensor_tags",
]

EXTENSION = "tbkit"  # the key of :class:`AppState` in ``app.extensions``


@dataclass(frozen=True)
class Tab:
    """One dashboard a route module serves.

    Attributes:
        name: The key in ``/data/plugins_listing`` (e.g. ``"distributions"``).
        tab_name: The label of the tab.
        data_plugins: Provider plugin names whose data enable the tab; empty = always enabled.
    """

    name: str
    tab_name: str
    data_plugins: tuple[str, ...] = ()


@dataclass
class AppState:
    """What the app knows besides Flask's config: the provider and the serving options."""

    provider: DataProvider
    window_title: str = ""
    path_prefix: str = ""
    samples_per_plugin: Mapping[str, int | None] = field(default_factory=dict)
    reload_interval: float = 0.0
    colors: _colors.ColorBook = field(default_factory=_colors.ColorBook)  # run colours for the app's lifetime
    group_colors: _colors.ColorBook = field(default_factory=_colors.ColorBook)  # run-group colours, likewise


def state() -> AppState:
    """The current app's :class:`AppState`."""
    return cast(AppState, current_app.extensions[EXTENSION])


def provider() -> DataProvider:
    """The current app's DataProvider."""
    return state().provider


def samples(plugin_name: str, default: int | None) -> int | None:
    """The points per series to serve for ``plugin_name`` (``--samples_per_plugin``; None = all)."""
    table = state().samples_per_plugin
    return table.get(plugin_name, default)


def run_colors(names: Iterable[str] | None = None) -> dict[str, str]:
    """The colours of the runs ``names`` (default: every run), as ``#rrggbb``.

    Every run of the logdir is given its palette index first (natural order, new runs
    after the known ones), so a run's colour does not depend on which runs a request names
    and does not change while the server runs.
    """
    book = state().colors
    everyone = book.colors(r.run_name for r in provider().list_runs())
    return everyone if names is None else book.colors(names)


def run_color(name: str) -> str:
    """The colour of run ``name`` (see :func:`run_colors`)."""
    return run_colors([name])[name]


def group_colors(names: Iterable[str]) -> dict[str, str]:
    """Colours for the run groups ``names``, from the palette, kept for the app's lifetime."""
    return state().group_colors.colors(names)


def series_colors(names: Iterable[str]) -> dict[str, str]:
    """Distinct palette colours for series drawn together (natural order of ``names``)."""
    return _colors.assign_colors(names)


def params() -> Mapping[str, Any]:
    """The request's parameters: the query string, merged with a JSON object body on POST."""
    merged: dict[str, Any] = dict(request.args.items())
    if request.method == "POST":
        data = request.get_data()
        body = None
        if data:
            try:  # orjson: deep nesting is a decode error, not a RecursionError
                body = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                raise InvalidArgumentError(f"the request body is not valid JSON: {exc}") from None
        if body is not None and not isinstance(body, dict):
            raise InvalidArgumentError("the request body must be a JSON object")
        merged.update(body or {})
    return merged


def str_param(args: Mapping[str, Any], name: str, *, default: str | None = None) -> str:
    """A required (or defaulted) string parameter."""
    value = args.get(name, default)
    if value is None:
        raise InvalidArgumentError(f"missing parameter {name!r}")
    if not isinstance(value, str):
        raise InvalidArgumentError(f"parameter {name!r} must be a string")
    return value


def _number(args: Mapping[str, Any], name: str, kind: type) -> Any:
    raw = args.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool):
        raise InvalidArgumentError(f"parameter {name!r} must be a number, got {raw!r}")
    try:
        value = kind(raw)
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgumentError(f"parameter {name!r} must be a number, got {raw!r}") from None
    if kind is float and not math.isfinite(value):
        raise InvalidArgumentError(f"parameter {name!r} must be finite, got {raw!r}")
    return value


def int_param(
    args: Mapping[str, Any],
    name: str,
    *,
    default: int | None,
    low: int | None = None,
    high: int | None = None,
) -> int | None:
    """An optional integer parameter within ``[low, high]``."""
    value: int | None = _number(args, name, int)
    if value is None:
        return default
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidArgumentError(f"parameter {name!r} must be in [{low}, {high}], got {value}")
    return value


def float_param(
    args: Mapping[str, Any], name: str, *, default: float, low: float, high: float, high_open: bool = False
) -> float:
    """An optional float parameter within ``[low, high]`` (``[low, high)`` when ``high_open``)."""
    value: float | None = _number(args, name, float)
    if value is None:
        return default
    if value < low or value > high or (high_open and value == high):
        bracket = ")" if high_open else "]"
        raise InvalidArgumentError(f"parameter {name!r} must be in [{low}, {high}{bracket}, got {value}")
    return value


def regex_param(args: Mapping[str, Any], name: str, *, ignore_case: bool = False) -> ClientPattern | None:
    """An optional regular expression parameter (None when absent or empty), matched in linear time.

    Compiled by :func:`tbkit.plugins.patterns.compile_client` (RE2): a pattern RE2 refuses
    or that is too costly is a 400. The result has ``search``, ``match`` and ``fullmatch``.
    """
    raw = args.get(name)
    if raw is None or raw == "":
        return None
    return compile_client(raw, name, ignore_case=ignore_case)


def known_runs(names: Iterable[str]) -> list[str]:
    """``names``, checked against the provider's runs (404 for an unknown one)."""
    runs = {r.run_name for r in provider().list_runs()}
    out = list(dict.fromkeys(names))
    for name in out:
        if name not in runs:
            raise NotFoundError(f"no such run: {name!r}")
    return out


def runs_param(args: Mapping[str, Any], name: str = "runs") -> list[str] | None:
    """Run names from ``runs`` (a JSON list, also as text, or comma-separated), checked; None when absent.

    A run whose name contains a comma can be given as the whole value, or in a JSON list
    (``runs=["a,b","c"]`` in a query string).
    """
    raw = args.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, list):
        if not all(isinstance(r, str) for r in raw):
            raise InvalidArgumentError(f"parameter {name!r} must be a list of run names")
        return known_runs(raw)
    if not isinstance(raw, str):
        raise InvalidArgumentError(f"parameter {name!r} must be a list of run names")
    runs = {r.run_name for r in provider().list_runs()}
    if raw in runs:
        return [raw]
    if raw.startswith("["):
        try:
            listed = json.loads(raw)
        except ValueError:
            raise InvalidArgumentError(f"parameter {name!r} is not a JSON list of run names") from None
        if not isinstance(listed, list) or not all(isinstance(r, str) for r in listed):
            raise InvalidArgumentError(f"parameter {name!r} must be a list of run names")
        return known_runs(listed)
    return known_runs(raw.split(","))


def read_blob_series(
    provider: DataProvider, plugin_name: str, run: str, tag: str, steps: int | None
) -> list[BlobSequenceDatum]:
    """The blob sequences of one series (at most ``steps``, the latest kept); 404 when absent."""
    data = provider.read_blob_sequences(
        plugin_name, downsample=steps, run_tag_filter=RunTagFilter(runs=[run], tags=[tag])
    )
    found = data.get(run, {}).get(tag)
    if found is None:
        raise NotFoundError(f"run {run!r} has no {plugin_name} tag {tag!r}")
    return found


def sampled_blob_series(
    plugin_name: str, default_steps: int
) -> tuple[DataProvider, int, list[BlobSequenceDatum]]:
    """For the ``run``, ``tag`` and ``sample`` parameters: the provider, the sample index, and
    the series' blob sequences (at most the plugin's samples per series, the latest kept)."""
    args = params()
    run = str_param(args, "run")
    tag = str_param(args, "tag")
    sample = int_param(args, "sample", default=0, low=0, high=None) or 0
    known_runs([run])
    data = provider()
    return data, sample, read_blob_series(data, plugin_name, run, tag, samples(plugin_name, default_steps))


def tensor_tags(plugin_name: str) -> Response:
    """The ``tags`` answer of a tensor plugin: ``{run: {tag: {display_name, description, max_step}}}``."""
    listing = provider().list_tensors(plugin_name)
    return json_response(
        {
            run: {
                tag: {"display_name": m.display_name, "description": m.description, "max_step": m.max_step}
                for tag, m in series.items()
            }
            for run, series in listing.items()
        }
    )


def blob_response(sniff: Callable[[bytes], str | None], kind: str) -> Response:
    """The blob named by the ``blob_key`` parameter, with the content type ``sniff`` finds in its
    first bytes; 404 when it finds none (a blob is never served as anything else, HTML least)."""
    key = str_param(params(), "blob_key")
    data = provider().read_blob(key)
    content_type = sniff(data[:16])
    if content_type is None:
        raise NotFoundError(f"blob {key!r} is not {kind}")
    return Response(data, mimetype=content_type)


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON: non-finite floats become null, ``<``, ``>``, ``&`` are escaped.

    Encoded by orjson (a chart's answer is mostly floats, which the standard library
    writes about ten times slower); values it refuses (integers beyond 64 bits) go
    through :mod:`json`.
    """
    try:
        data = orjson.dumps(value, option=_ORJSON)
    except (orjson.JSONEncodeError, TypeError):
        data = json.dumps(_clean(value), separators=(",", ":"), allow_nan=False).encode()
    if b"<" in data or b">" in data or b"&" in data:
        data = data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    return data


def json_response(value: Any, status: int = 200) -> Response:
    """A JSON response of ``value`` (see :func:`json_bytes`)."""
    return Response(json_bytes(value), status=status, mimetype="application/json")
