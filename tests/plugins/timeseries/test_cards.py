"""The cards a search finds, in sections, cut into pages of whole grid rows."""

from __future__ import annotations

import re

import pytest

from tbkit.plugins.timeseries.cards import Card, group_of, matching_tags, page_of, search

CARDS = sorted(
    [
        Card("scalars", "loss/train", ("a", "b")),
        Card("scalars", "loss/eval", ("a",)),
        Card("histograms", "loss/eval", ("a",)),
        Card("images", "pics", ("a",), samples=3),
        Card("histograms", "weights/w1", ("b",)),
        Card("scalars", "acc", ("a",)),
    ],
    key=lambda c: (c.tag, ("scalars", "histograms", "images").index(c.kind)),
)


def titles(sections):
    return [(s.name, s.pinned, [(c.kind, c.tag) for c in s.cards]) for s in sections]


def test_sections_pinned_first_then_groups_with_scalars_first() -> None:
    found = search(CARDS, pattern=None, kind="all", pinned=frozenset({("images", "pics")}))
    assert titles(found) == [
        ("Pinned", True, [("images", "pics")]),
        ("acc", False, [("scalars", "acc")]),
        ("loss", False, [("scalars", "loss/eval"), ("histograms", "loss/eval"), ("scalars", "loss/train")]),
        ("weights", False, [("histograms", "weights/w1")]),
    ]


def test_search_is_case_insensitive_anywhere_and_by_kind() -> None:
    found = search(CARDS, pattern=re.compile("EVAL", re.IGNORECASE), kind="histograms", pinned=frozenset())
    assert titles(found) == [("loss", False, [("histograms", "loss/eval")])]
    assert search(CARDS, pattern=re.compile("^nothing$"), kind="all", pinned=frozenset()) == []


def test_a_pinned_card_that_does_not_match_is_not_shown() -> None:
    found = search(CARDS, pattern=re.compile("acc"), kind="all", pinned=frozenset({("images", "pics")}))
    assert titles(found) == [("acc", False, [("scalars", "acc")])]


def test_pages_hold_whole_rows_and_every_card_once() -> None:
    many = [Card("scalars", f"g{g}/t{i:02d}", ("r",)) for g in range(3) for i in range(7)]
    sections = search(many, pattern=None, kind="all", pinned=frozenset())
    seen = []
    first = page_of(sections, columns=3, rows=2, page=0)
    assert first["total"] == 21 and first["pages"] == 5  # 3 rows a section (3 + 3 + 1 cards)
    for page in range(first["pages"]):
        answer = page_of(sections, columns=3, rows=2, page=page)
        assert answer["rows"] == 2 or page == first["pages"] - 1
        seen.extend(c["tag"] for c in answer["cards"])
        for s in answer["sections"]:
            # A section's part on a page is whole rows, but for its last one.
            part = [c for c in answer["cards"] if c["section"] == s["index"]]
            assert len(part) % 3 == 0 or part[-1]["tag"].endswith("t06")
    assert seen == [c.tag for c in many]
    second = page_of(sections, columns=3, rows=2, page=1)
    assert [(s["name"], s["first"], s["count"]) for s in second["sections"]] == [
        ("g0", False, 7),
        ("g1", True, 7),
    ]
    assert page_of(sections, columns=3, rows=2, page=99)["cards"] == []


def test_images_carry_their_samples() -> None:
    answer = page_of(
        search(CARDS, pattern=None, kind="images", pinned=frozenset()), columns=1, rows=5, page=0
    )
    assert answer["cards"] == [{"kind": "images", "tag": "pics", "runs": ["a"], "samples": 3, "section": 0}]


def test_matching_tags_are_distinct_sorted_and_paged() -> None:
    found = matching_tags(CARDS, pattern=re.compile("o"), kind="all", offset=1, limit=1)
    assert found == {"total": 2, "offset": 1, "tags": ["loss/train"]}


@pytest.mark.parametrize(("tag", "group"), [("a/b/c", "a"), ("abc", "abc"), ("/abc", "/abc"), ("a/", "a")])
def test_group_of(tag: str, group: str) -> None:
    assert group_of(tag) == group


def _listed_the_long_way(provider) -> list[tuple[str, str, tuple[str, ...]]]:
    out = []
    for kind, listing in (
        ("scalars", provider.list_scalars("scalars")),
        ("histograms", provider.list_tensors("histograms")),
        ("images", provider.list_blob_sequences("images")),
    ):
        tags = {tag for series in listing.values() for tag in series}
        out.extend((kind, tag, tuple(sorted(r for r in listing if tag in listing[r]))) for tag in tags)
    return sorted(out, key=lambda c: (c[1], ("scalars", "histograms", "images").index(c[0])))


@pytest.mark.parametrize("source", ["logdir", "memory"])
def test_all_cards_lists_what_the_provider_lists(source, tbkit_logdir) -> None:
    import tbkit
    from tbkit.plugins.timeseries.cards import all_cards
    from tbkit.provider import InMemoryProvider

    if source == "logdir":
        provider = tbkit.read(str(tbkit_logdir)).provider
    else:
        provider = InMemoryProvider(
            {r: {f"t{i}": {"points": [(0, 0.0, 1.0)]} for i in range(n)} for r, n in [("b", 3), ("a", 5)]}
        )
    cards = all_cards(provider)
    assert [(c.kind, c.tag, c.runs) for c in cards] == _listed_the_long_way(provider)
    assert {c.kind for c in cards} == (
        {"scalars", "histograms", "images"} if source == "logdir" else {"scalars"}
    )
