"""The histogram and distribution dashboards' routes (``/data/plugin/histograms/``)."""

from __future__ import annotations

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import web
from tbkit.plugins.histograms.metadata import PLUGIN_NAME
from tbkit.plugins.histograms.query import BASIS_POINTS, percentiles
from tbkit.provider import RunTagFilter, TensorDatum

__all__ = ["TABS", "blueprint"]

TABS = (
    web.Tab("histograms", "Histograms", (PLUGIN_NAME,)),
    web.Tab("distributions", "Distributions", (PLUGIN_NAME,)),
)
DEFAULT_POINTS = 500
MAX_POINTS = 10000

blueprint = Blueprint("histograms", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    return web.tensor_tags(PLUGIN_NAME)


def _read() -> list[TensorDatum]:
    args = web.params()
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    web.known_runs([run])
    default = web.samples(PLUGIN_NAME, DEFAULT_POINTS)
    points = web.int_param(args, "points", default=default, low=1, high=None)
    data = web.provider().read_tensors(
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
    return web.json_response(
        [{"step": d.step, "wall_time": d.wall_time, "buckets": _buckets(d).tolist()} for d in _read()]
    )


@blueprint.get("/distributions")
def distributions() -> Response:
    return web.json_response(
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
