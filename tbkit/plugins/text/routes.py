"""The text dashboard's routes (``/data/plugin/text/``)."""

from __future__ import annotations

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import _web
from tbkit.plugins.text.metadata import PLUGIN_NAME
from tbkit.plugins.text.render import text_to_html
from tbkit.provider import RunTagFilter

__all__ = ["TABS", "blueprint"]

TABS = (_web.Tab("text", "Text", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 100

blueprint = Blueprint("text", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    return _web.tensor_tags(PLUGIN_NAME)


@blueprint.get("/text")
def text() -> Response:
    args = _web.params()
    run = _web.str_param(args, "run")
    tag = _web.str_param(args, "tag")
    _web.known_runs([run])
    data = _web.provider().read_tensors(
        PLUGIN_NAME,
        downsample=_web.samples(PLUGIN_NAME, DEFAULT_STEPS),
        run_tag_filter=RunTagFilter(runs=[run], tags=[tag]),
    )
    found = data.get(run, {}).get(tag)
    if found is None:
        raise NotFoundError(f"run {run!r} has no text tag {tag!r}")
    return _web.json_response(
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
