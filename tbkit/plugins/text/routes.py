"""The text dashboard's routes (``/data/plugin/text/``)."""

from __future__ import annotations

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import web
from tbkit.plugins.text.metadata import PLUGIN_NAME
from tbkit.plugins.text.render import text_to_html
from tbkit.provider import RunTagFilter

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("text", "Text", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 100

blueprint = Blueprint("text", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    return web.tensor_tags(PLUGIN_NAME)


@blueprint.get("/text")
def text() -> Response:
    args = web.params()
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    web.known_runs([run])
    data = web.provider().read_tensors(
        PLUGIN_NAME,
        downsample=web.samples(PLUGIN_NAME, DEFAULT_STEPS),
        run_tag_filter=RunTagFilter(runs=[run], tags=[tag]),
    )
    found = data.get(run, {}).get(tag)
    if found is None:
        raise NotFoundError(f"run {run!r} has no text tag {tag!r}")
    return web.json_response(
        [
            {
                "step": d.step,
                "wall_time": d.wall_time,
                "shape": list(np.shape(d.numpy)),
                "html": text_to_html(d.numpy),
            }
            for d in found
        ]
    )
