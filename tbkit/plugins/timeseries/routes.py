"""The time-series dashboard's routes (``/data/plugin/timeseries/``): which cards to show.

* ``tags``: every card at once (``{"scalars": {tag: [runs]}, ...}``), for scripts;
* ``cards``: one page of the cards a search finds (see :mod:`.cards`), what the
  dashboards ask as they scroll;
* ``search``: the distinct tags a search finds, paged (the filter box's suggestions).

The cards' data come from the scalars, histograms and images routes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, current_app

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import web
from tbkit.plugins.patterns import ClientPattern
from tbkit.plugins.timeseries import cards as card_pages
from tbkit.provider import DataProvider

__all__ = ["MAX_COLUMNS", "MAX_ROWS", "MAX_TAGS", "TABS", "blueprint", "card_listing"]

TABS = (web.Tab("timeseries", "Time Series"),)
MAX_COLUMNS = 16
MAX_ROWS = 50
MAX_TAGS = 500  # the most tags one ``search`` page holds

_CARDS = "tbkit.timeseries.cards"  # (provider, generation, cards) in app.extensions
_LOCK = threading.Lock()

blueprint = Blueprint("timeseries", __name__)


def card_listing(provider: DataProvider) -> dict[str, Any]:
    """``{"scalars": {tag: [runs]}, "histograms": {tag: [runs]}, "images": {tag: {"runs", "samples"}}}``."""
    out: dict[str, Any] = {"scalars": {}, "histograms": {}, "images": {}}
    for card in card_pages.all_cards(provider):
        runs = list(card.runs)
        out[card.kind][card.tag] = {"runs": runs, "samples": card.samples} if card.kind == "images" else runs
    return out


@blueprint.get("/tags")
def tags() -> Response:
    return web.json_response(card_listing(web.provider()))


def _cards() -> list[card_pages.Card]:
    """Every card, kept while the provider's data generation stays the same (when it has one)."""
    provider = web.provider()
    generation = getattr(provider, "generation", None)
    if not isinstance(generation, int):
        return card_pages.all_cards(provider)
    with _LOCK:
        cached = current_app.extensions.get(_CARDS)
        if cached is not None and cached[0] is provider and cached[1] == generation:
            return list(cached[2])
    found = card_pages.all_cards(provider)
    with _LOCK:
        current_app.extensions[_CARDS] = (provider, generation, found)
    return found


def _pattern(args: Mapping[str, Any]) -> ClientPattern | None:
    """The ``regex`` parameter, matched anywhere in a tag and ignoring case (400 when it is not valid)."""
    return web.regex_param(args, "regex", ignore_case=True)


def _kind(args: Mapping[str, Any]) -> str:
    kind = web.str_param(args, "kind", default="all")
    if kind != "all" and kind not in card_pages.KINDS:
        raise InvalidArgumentError(f"kind must be all or one of {', '.join(card_pages.KINDS)}, got {kind!r}")
    return kind


def _pinned(args: Mapping[str, Any]) -> frozenset[tuple[str, str]]:
    """The ``pinned`` parameter: ``[[kind, tag], ...]`` (a JSON list, also as text)."""
    raw = args.get("pinned")
    if raw in (None, ""):
        return frozenset()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    ok = isinstance(raw, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in raw
    )
    if not ok:
        raise InvalidArgumentError("parameter 'pinned' must be a JSON list of [kind, tag] pairs")
    return frozenset((kind, tag) for kind, tag in raw)


@blueprint.route("/cards", methods=["GET", "POST"])
def cards() -> Response:
    """Page ``page`` of the cards matching ``regex`` and ``kind``, ``columns`` a row, ``rows`` a page."""
    args = dict(web.params())
    pattern, kind, pinned = _pattern(args), _kind(args), _pinned(args)
    columns = web.int_param(args, "columns", default=3, low=1, high=MAX_COLUMNS) or 3
    rows = web.int_param(args, "rows", default=4, low=1, high=MAX_ROWS) or 4
    page = web.int_param(args, "page", default=0, low=0, high=None) or 0
    every = _cards()
    sections = card_pages.search(every, pattern=pattern, kind=kind, pinned=pinned)
    answer = card_pages.page_of(sections, columns=columns, rows=rows, page=page)
    answer["unfiltered"] = len(every)  # cards of every kind, before the search
    return web.json_response(answer)


@blueprint.get("/search")
def search() -> Response:
    """The distinct tags matching ``regex`` and ``kind``, sorted, ``limit`` of them from ``offset``."""
    args = web.params()
    pattern, kind = _pattern(args), _kind(args)
    offset = web.int_param(args, "offset", default=0, low=0, high=None) or 0
    limit = web.int_param(args, "limit", default=50, low=1, high=MAX_TAGS) or 50
    found = card_pages.matching_tags(_cards(), pattern=pattern, kind=kind, offset=offset, limit=limit)
    return web.json_response(found)
