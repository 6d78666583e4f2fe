"""The custom scalars dashboard's routes (``/data/plugin/custom_scalars/``).

* ``layout``: every run's logged layout, merged (see :mod:`.layout`);
* ``scalars``: the series of the tags a multiline chart's regexes match (``re.match``, as
  TensorBoard does), per run, smoothed and downsampled as the scalar dashboard's;
* ``margin``: a margin chart's value series per run with its band (the lower and upper
  tags, aligned on the steps both have), downsampled with min/max buckets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import web
from tbkit.plugins.custom_scalars.layout import layout_json, provider_layout
from tbkit.plugins.custom_scalars.metadata import PLUGIN_NAME
from tbkit.plugins.patterns import compile_client
from tbkit.plugins.scalars import query
from tbkit.plugins.scalars.metadata import PLUGIN_NAME as SCALARS
from tbkit.plugins.scalars.params import chart_options

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("custom_scalars", "Custom Scalars", (PLUGIN_NAME,)),)
MAX_REGEXES = 100

blueprint = Blueprint("custom_scalars", __name__)


@blueprint.get("/layout")
def layout() -> Response:
    merged, unreadable = provider_layout(web.provider())
    return web.json_response({**layout_json(merged), "unreadable_runs": unreadable})


def _regexes(args: Mapping[str, Any]) -> list[str]:
    """``tags`` (a list of regexes, in a POST body) or ``tag`` (one regex)."""
    raw = args.get("tags")
    if raw is None:
        return [web.str_param(args, "tag")]
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw) or not raw:
        raise InvalidArgumentError("parameter 'tags' must be a non-empty list of regexes")
    if len(raw) > MAX_REGEXES:
        raise InvalidArgumentError(f"at most {MAX_REGEXES} tag regexes per request")
    return raw


@blueprint.route("/scalars", methods=["GET", "POST"])
def scalars() -> Response:
    args = dict(web.params())
    regexes = _regexes(args)
    runs = web.runs_param(args)
    options = chart_options(args)
    patterns = []
    invalid = []
    for text in regexes:
        try:
            patterns.append(compile_client(text, "tags"))
        except InvalidArgumentError:
            invalid.append(text)  # a layout is logged data: a bad regex matches nothing

    def keep(run: str, tag: str) -> bool:
        return (runs is None or run in runs) and any(p.match(tag) for p in patterns)

    found = query.all_scalar_columns(web.provider(), SCALARS, keep) if patterns else {}
    series: dict[str, dict[str, Any]] = {}
    colors = web.series_colors(f"{run}/{tag}" for run, tag in found)
    for run, tag in sorted(found):
        payload = query.series_payload(found[run, tag], **options)
        series.setdefault(run, {})[tag] = {"color": colors[f"{run}/{tag}"], **payload}
    return web.json_response({"series": series, "invalid": invalid})


def _last_per_step(columns: query.Columns) -> query.Columns:
    """The series in step order with one point per step (the last written)."""
    steps, walls, values = columns
    order = np.argsort(steps, kind="stable")
    steps, walls, values = steps[order], walls[order], values[order]
    last = np.r_[steps[1:] != steps[:-1], True] if len(steps) else np.zeros(0, dtype=bool)
    return steps[last], walls[last], values[last]


def _band(
    lower: query.Columns,
    upper: query.Columns,
    points: int | None,
    min_step: int | None,
    max_step: int | None,
) -> dict[str, Any]:
    """The band on the steps both edges have (in the step range), downsampled keeping each edge's extremes."""
    lo_steps, lo_walls, lo_values = _last_per_step(lower)
    hi_steps, _, hi_values = _last_per_step(upper)
    steps, a, b = np.intersect1d(lo_steps, hi_steps, assume_unique=True, return_indices=True)
    low, high, walls = lo_values[a], hi_values[b], lo_walls[a]
    total = len(steps)
    inside = np.ones(total, dtype=bool)
    if min_step is not None:
        inside &= steps >= min_step
    if max_step is not None:
        inside &= steps <= max_step
    steps, low, high, walls = steps[inside], low[inside], high[inside], walls[inside]
    edge = None if points is None else max(4, points // 2)
    both = np.unique(np.concatenate([query.minmax_indices(low, edge), query.minmax_indices(high, edge)]))
    keep = query.thin_indices(both, points)
    nullable = lambda v: [x if np.isfinite(x) else None for x in v.tolist()]  # noqa: E731
    return {
        "total": total,
        "in_range": len(steps),
        "shown": len(keep),
        "step": steps[keep].tolist(),
        "wall_time": walls[keep].tolist(),
        "lower": nullable(low[keep]),
        "upper": nullable(high[keep]),
    }


@blueprint.route("/margin", methods=["GET", "POST"])
def margin() -> Response:
    args = dict(web.params())
    value_tag = web.str_param(args, "value")
    lower_tag = web.str_param(args, "lower")
    upper_tag = web.str_param(args, "upper")
    runs = web.runs_param(args)
    options = chart_options(args)
    wanted = {value_tag, lower_tag, upper_tag}

    def keep(run: str, tag: str) -> bool:
        return (runs is None or run in runs) and tag in wanted

    found = query.all_scalar_columns(web.provider(), SCALARS, keep)
    answer: dict[str, Any] = {}
    for run in sorted({r for r, t in found if t == value_tag}):
        payload = query.series_payload(found[run, value_tag], **options)
        has_band = (run, lower_tag) in found and (run, upper_tag) in found
        band = (
            _band(
                found[run, lower_tag],
                found[run, upper_tag],
                options["points"],
                options["min_step"],
                options["max_step"],
            )
            if has_band
            else None
        )
        answer[run] = {**payload, "band": band}
    return web.json_response(answer)
