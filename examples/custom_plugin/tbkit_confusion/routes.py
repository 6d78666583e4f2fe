"""The serve side: a blueprint the server mounts under ``/data/plugin/confusion_matrix/`` and one tab.

Written with the public route kit (:mod:`tbkit.plugins.web`) over the DataProvider only; the
page is ``static/confusion.js`` (the server finds it by the tab's name).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from tbkit.plugins import web
from tbkit.provider import DataProvider
from tbkit_confusion import PLUGIN_NAME
from tbkit_confusion.frames import accuracy

__all__ = ["TABS", "blueprint", "latest_matrices"]

TABS = (web.Tab("confusion", "Confusion", (PLUGIN_NAME,)),)
blueprint = Blueprint("confusion", __name__)


def latest_matrices(provider: DataProvider) -> dict[str, dict[str, dict[str, Any]]]:
    """``{run: {tag: {step, wall_time, matrix (rows of counts), accuracy}}}``: each series' latest point."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for run, series in provider.read_tensors(PLUGIN_NAME, downsample=1).items():  # keeps the latest
        for tag, points in series.items():
            if not points:
                continue
            last = max(points, key=lambda p: p.step)
            out.setdefault(run, {})[tag] = {
                "step": last.step,
                "wall_time": last.wall_time,
                "matrix": last.numpy.tolist(),
                "accuracy": accuracy(last.numpy),
            }
    return out


@blueprint.get("/tags")
def tags() -> Response:
    """``{run: {tag: {display_name, description, max_step}}}``."""
    return web.tensor_tags(PLUGIN_NAME)


@blueprint.get("/latest")
def latest() -> Response:
    """The latest matrix of every run and tag (see :func:`latest_matrices`)."""
    return web.json_response(latest_matrices(web.provider()))
