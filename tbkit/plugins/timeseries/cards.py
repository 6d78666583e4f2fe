"""The time-series cards, searched and paged on the server: the page never holds every tag.

A dashboard of cards (one per kind and tag) asks for one page at a time: the cards whose
tag matches a regex (case-insensitive, searched anywhere in the tag, as the filter box
always did), of one kind or all, pinned ones first. The list is cut into sections
(Pinned, then one per tag group: the tag's prefix before its first ``/``) and each page
holds whole grid rows (``columns`` cards a row, ``rows`` rows a page), so a section
split over two pages leaves no gap in its grid.

Example:
    >>> cards = [Card("scalars", "a/x", ("r",)), Card("scalars", "b", ("r",))]
    >>> found = search(cards, pattern=None, kind="all", pinned=frozenset())
    >>> [(s.name, len(s.cards)) for s in found]
    [('a', 1), ('b', 1)]
    >>> paged = page_of(found, columns=2, rows=1, page=0)
    >>> paged["pages"], [c["tag"] for c in paged["cards"]]
    (2, ['a/x'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tbkit.provider import DataClass, DataProvider

__all__ = [
    "KINDS",
    "Card",
    "Section",
    "TagPattern",
    "all_cards",
    "group_of",
    "matching_tags",
    "page_of",
    "search",
]

KINDS = ("scalars", "histograms", "images")  # the card kinds, in the order a tag's cards come
_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}


class TagPattern(Protocol):
    """What filters tags: a client pattern (:mod:`tbkit.plugins.patterns`) or an ``re.Pattern``."""

    def search(self, text: str, /) -> object | None:
        """A match anywhere in ``text``, or None."""


@dataclass(frozen=True)
class Card:
    """One card: a kind, a tag, the runs that have it (sorted), and for images the samples."""

    kind: str
    tag: str
    runs: tuple[str, ...]
    samples: int = 0

    @property
    def key(self) -> tuple[str, str]:
        """``(kind, tag)``: what pinning names."""
        return self.kind, self.tag

    def as_json(self) -> dict[str, Any]:
        """The card as the page gets it."""
        out: dict[str, Any] = {"kind": self.kind, "tag": self.tag, "runs": list(self.runs)}
        if self.kind == "images":
            out["samples"] = self.samples
        return out


@dataclass(frozen=True)
class Section:
    """A run of cards shown under one title: the pinned ones, or one tag group."""

    name: str
    pinned: bool
    cards: list[Card] = field(default_factory=list)


def group_of(tag: str) -> str:
    """The tag's group: its prefix before the first ``/`` (the whole tag when there is none).

    Example:
        >>> group_of("loss/train"), group_of("loss"), group_of("/x")
        ('loss', 'loss', '/x')
    """
    i = tag.find("/")
    return tag[:i] if i > 0 else tag


def _runs_by_tag(listing: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for run in sorted(listing):
        for tag in listing[run]:
            out.setdefault(tag, []).append(run)
    return out


def _listed(provider: DataProvider, data_class: DataClass, plugin_name: str) -> dict[str, list[str]]:
    """``{tag: sorted runs}`` of ``plugin_name``'s series, named by the provider's ``keep`` calls.

    ``series_info`` asks ``keep(run, tag)`` of every series before it builds anything for it;
    refusing them all lists the pairs without building an info (or a metadata value) per
    series: at 10,000 tags a few milliseconds instead of ``list_scalars``' 0.2 s.
    """
    out: dict[str, list[str]] = {}

    def keep(run: str, tag: str) -> bool:
        out.setdefault(tag, []).append(run)
        return False

    provider.series_info(data_class, plugin_name=plugin_name, keep=keep)
    for runs in out.values():
        runs.sort()
    return out


def all_cards(provider: DataProvider) -> list[Card]:
    """Every card of the provider's scalars, histograms and images, sorted by tag, then kind."""
    cards = [Card("scalars", t, tuple(r)) for t, r in _listed(provider, DataClass.SCALAR, "scalars").items()]
    histograms = _listed(provider, DataClass.TENSOR, "histograms")
    cards.extend(Card("histograms", t, tuple(r)) for t, r in histograms.items())
    images = provider.list_blob_sequences("images")
    for tag, runs in _runs_by_tag(images).items():
        samples = max(0, max(images[run][tag].max_length for run in runs) - 2)
        cards.append(Card("images", tag, tuple(runs), samples))
    cards.sort(key=lambda c: (c.tag, _KIND_ORDER[c.kind]))
    return cards


def _matches(cards: Iterable[Card], pattern: TagPattern | None, kind: str) -> list[Card]:
    return [
        c
        for c in cards
        if (kind == "all" or c.kind == kind) and (pattern is None or pattern.search(c.tag) is not None)
    ]


def search(
    cards: Sequence[Card], *, pattern: TagPattern | None, kind: str, pinned: frozenset[tuple[str, str]]
) -> list[Section]:
    """The sections of the cards of ``kind`` ("all": every kind) whose tag ``pattern`` finds.

    ``cards`` come sorted by tag, then kind (as :func:`all_cards` gives them). The pinned
    ones (by ``(kind, tag)``) come first, in one section; then one section per tag group:
    groups holding scalars first (the quickest to draw), then histograms, then images,
    each by name.
    """
    found = _matches(cards, pattern, kind)
    top = Section("Pinned", True, [c for c in found if c.key in pinned])
    groups: dict[str, Section] = {}
    for card in found:
        if card.key in pinned:
            continue
        name = group_of(card.tag)
        section = groups.get(name)
        if section is None:
            section = groups[name] = Section(name, False)
        section.cards.append(card)
    rank = {name: min(_KIND_ORDER[c.kind] for c in s.cards) for name, s in groups.items()}
    ordered = [groups[name] for name in sorted(groups, key=lambda n: (rank[n], n))]
    return ([top] if top.cards else []) + ordered


def page_of(sections: Sequence[Section], *, columns: int, rows: int, page: int) -> dict[str, Any]:
    """Page ``page`` of ``sections`` laid out ``columns`` cards a row, ``rows`` rows a page.

    Returns ``{"total", "pages", "page", "rows", "cards", "sections"}``: the number of
    cards in all, of pages, this page's index and rows, its cards (each with its
    ``section`` index), and the sections it touches, ``{"index", "name", "pinned",
    "count", "first"}`` (``first``: the section starts on this page, so it shows its title).
    A page past the end holds no card.
    """
    row = 0
    start_row, end_row = page * rows, (page + 1) * rows
    cards: list[dict[str, Any]] = []
    touched: list[dict[str, Any]] = []
    total = 0
    page_rows = 0
    for index, section in enumerate(sections):
        n = len(section.cards)
        total += n
        section_rows = -(-n // columns)
        lo, hi = max(row, start_row), min(row + section_rows, end_row)
        if lo < hi:
            page_rows += hi - lo
            first = lo == row
            for card in section.cards[(lo - row) * columns : (hi - row) * columns]:
                cards.append({**card.as_json(), "section": index})
            touched.append(
                {"index": index, "name": section.name, "pinned": section.pinned, "count": n, "first": first}
            )
        row += section_rows
    return {
        "total": total,
        "pages": -(-row // rows),
        "page": page,
        "rows": page_rows,
        "cards": cards,
        "sections": touched,
    }


def matching_tags(
    cards: Sequence[Card], *, pattern: TagPattern | None, kind: str, offset: int, limit: int
) -> dict[str, Any]:
    """The distinct tags of the matching cards, sorted: ``{"total", "offset", "tags"}`` from ``offset``."""
    tags = list(dict.fromkeys(c.tag for c in _matches(cards, pattern, kind)))
    return {"total": len(tags), "offset": offset, "tags": tags[offset : offset + limit]}
