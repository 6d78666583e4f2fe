"""The time-series listing: one card per tag, with the runs that have it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app
from tests.server._logdirs import XSS_RUN, XSS_TAG


def test_cards(client: Any) -> None:
    cards = client.get("/data/plugin/timeseries/tags").json
    assert set(cards) == {"scalars", "histograms", "images"}
    assert cards["scalars"]["loss"] == ["eval", "train"]
    assert cards["scalars"]["constant"] == ["train"]
    assert cards["scalars"][XSS_TAG] == [XSS_RUN]
    assert cards["histograms"] == {"weights": ["train"]}
    assert cards["images"] == {"pictures": {"runs": ["train"], "samples": 2}}


MANY = 1200  # tags in one run


@pytest.fixture(scope="module")
def many() -> Any:
    tags = {f"g{i % 4}/t{i:04d}": {"points": [(0, 0.0, float(i))]} for i in range(MANY)}
    tags["odd <&> [tag]"] = {"points": [(0, 0.0, 1.0)]}
    return create_app(
        InMemoryProvider({"run": tags, "other": {"g0/t0000": {"points": [(0, 0.0, 2.0)]}}})
    ).test_client()


def test_cards_pages_cover_every_tag_once(many: Any) -> None:
    first = many.get("/data/plugin/timeseries/cards?columns=4&rows=5&page=0").json
    assert first["total"] == MANY + 1 and len(first["cards"]) == 20
    seen = []
    for page in range(first["pages"]):
        answer = many.get(f"/data/plugin/timeseries/cards?columns=4&rows=5&page={page}").json
        seen.extend(c["tag"] for c in answer["cards"])
    assert sorted(seen) == sorted({f"g{i % 4}/t{i:04d}" for i in range(MANY)} | {"odd <&> [tag]"})
    assert len(seen) == len(set(seen))
    assert first["cards"][0] == {"kind": "scalars", "tag": "g0/t0000", "runs": ["other", "run"], "section": 0}


def test_cards_search_runs_on_the_server(many: Any) -> None:
    answer = many.get("/data/plugin/timeseries/cards", query_string={"regex": "T0*11$", "rows": 50}).json
    assert sorted(c["tag"] for c in answer["cards"]) == ["g3/t0011"]
    # Names are data: a regex for the odd one, and its characters come back as JSON escapes.
    response = many.get("/data/plugin/timeseries/cards", query_string={"regex": re.escape("<&> [tag]")})
    assert [c["tag"] for c in response.json["cards"]] == ["odd <&> [tag]"]
    assert b"<" not in response.data and b"&" not in response.data


def test_pinned_cards_come_first_on_post(many: Any) -> None:
    body = {"pinned": [["scalars", "g3/t0007"], ["images", "g3/t0007"]], "columns": 2, "rows": 1}
    answer = many.post("/data/plugin/timeseries/cards", json=body).json
    assert [c["tag"] for c in answer["cards"]] == ["g3/t0007"]
    assert answer["sections"] == [{"index": 0, "name": "Pinned", "pinned": True, "count": 1, "first": True}]


def test_search_route_pages_distinct_tags(many: Any) -> None:
    found = many.get(
        "/data/plugin/timeseries/search", query_string={"regex": "^g1/", "limit": 5, "offset": 10}
    ).json
    assert found["total"] == MANY // 4 and found["offset"] == 10
    assert found["tags"] == [f"g1/t{i:04d}" for i in range(41, 61, 4)]


@pytest.mark.parametrize(
    "query",
    [
        "regex=(unclosed",
        "regex=a**",
        "kind=tensors",
        "columns=0",
        "rows=1000",
        "page=-1",
        "pinned=notjson",
        'pinned=[["scalars"]]',
    ],
)
def test_bad_parameters_are_400(many: Any, query: str) -> None:
    response = many.get(f"/data/plugin/timeseries/cards?{query}")
    assert response.status_code == 400, response.data
    assert "error" in response.json


def test_bad_regex_in_search_is_400(many: Any) -> None:
    response = many.get("/data/plugin/timeseries/search?regex=[z-a]")
    assert response.status_code == 400 and "regular expression" in response.json["error"]


def test_cards_follow_new_data(tmp_path: Any) -> None:
    import tbkit

    with tbkit.SummaryWriter(str(tmp_path / "a")) as w:
        w.add_scalar("first", 1.0, 0)
    logdir = tbkit.read(str(tmp_path))
    client = create_app(logdir.provider).test_client()
    assert [c["tag"] for c in client.get("/data/plugin/timeseries/cards").json["cards"]] == ["first"]
    with tbkit.SummaryWriter(str(tmp_path / "b")) as w:
        w.add_scalar("second", 1.0, 0)
    logdir.reload()
    assert [c["tag"] for c in client.get("/data/plugin/timeseries/cards").json["cards"]] == [
        "first",
        "second",
    ]
