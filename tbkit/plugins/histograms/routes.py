"""The histogram and distribution dashboards' routes (``/data/plugin/histograms/``)."""

from __future__ import annotations

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import _web
from tbkit.plugins.histograms.metadata import PLUGIN_NAME
from tbkit.plugins.histograms.query import BASIS_POINTS, percentiles
from tbkit.provider import RunTagFilter, TensorDatum

__all__ = ["TABS", "blueprint"]

TABS = (
    _web.Tab("histograms", "Histograms", (PLUGIN_NAME,)),
    _web.Tab("distributions", "Distributions", (PLUGIN_NAME,)),
)
DEFAULT_POINTS = 500
MAX_POINTS = 10000

blueprint = Blueprint("histograms", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    return _web.tensor_tags(PLUGIN_NAME)


def _read() -> list[TensorDatum]:
    args = _web.params()
    run = _web.str_param(args, "run")
    tag = _web.str_param(args, "tag")
    _web.known_runs([run])
    default = _web.samples(PLUGIN_NAME, DEFAULT_POINTS)
    points = _web.int_param(args, "points", default=default, low=1, high=None)
    data = _web.provider().read_tensors(
        PLUGIN_NAME, downsample=points, run_tag_filter=RunTagFilter(runs=[run], tags=[tag])
    )
    found = data.get(run, {}).get(tag)
    if found is None:
        raise NotFoundError(f"run {run!r} has no histogram tag {tag!r}")
    return found


def _buckets(datum: TensorDatum) -> np.ndarray:
    return np.asarray(datum.numpy, dtype=np.float64).reshape(-1, 3)


@blueprint.get("/histograms")
def histograms() -> Response:
    return _web.json_response(
        [{"step": d.step, "wall_time": d.wall_time, "buckets": _buckets(d).tolist()} for d in _read()]
    )


@blueprint.get("/distributions")
def distributions() -> Response:
    return _web.json_response(
        [
            {
                "step": d.step,
                "wall_time": d.wall_time,
                "bps": list(BASIS_POINTS),
                "values": percentiles(_buckets(d)),
            }
            for d in _read()
        ]
    )
