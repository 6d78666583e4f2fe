"""The time-series dashboard's routes (``/data/plugin/timeseries/``): which cards to show.

The cards' data come from the scalars, histograms and images routes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response

from tbkit.plugins import web
from tbkit.provider import DataProvider

__all__ = ["TABS", "blueprint", "card_listing"]

TABS = (web.Tab("timeseries", "Time Series"),)

blueprint = Blueprint("timeseries", __name__)


def _runs_by_tag(listing: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for run in sorted(listing):
        for tag in listing[run]:
            out.setdefault(tag, []).append(run)
    return dict(sorted(out.items()))


def card_listing(provider: DataProvider) -> dict[str, Any]:
    """``{"scalars": {tag: [runs]}, "histograms": {tag: [runs]}, "images": {tag: {"runs", "samples"}}}``."""
    images = provider.list_blob_sequences("images")
    image_cards = {}
    for tag, runs in _runs_by_tag(images).items():
        samples = max(images[run][tag].max_length for run in runs) - 2
        image_cards[tag] = {"runs": runs, "samples": max(0, samples)}
    return {
        "scalars": _runs_by_tag(provider.list_scalars("scalars")),
        "histograms": _runs_by_tag(provider.list_tensors("histograms")),
        "images": image_cards,
    }


@blueprint.get("/tags")
def tags() -> Response:
    return web.json_response(card_listing(web.provider()))
