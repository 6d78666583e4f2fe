"""The time-series tag search with client patterns: RE2, case-insensitive as before, 400 when refused."""

from __future__ import annotations

from typing import Any

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app

EVIL_TAG = "a" * 40 + "!"  # (a+)+$ takes about 2**40 steps in Python's re on this tag


@pytest.fixture(scope="module")
def client() -> Any:
    tags = {name: {"points": [(0, 0.0, 1.0)]} for name in ("train/Loss", "eval/loss", "acc", EVIL_TAG)}
    return create_app(InMemoryProvider({"run": tags})).test_client()


def _tags(client: Any, route: str, regex: str) -> list[str]:
    answer = client.get(f"/data/plugin/timeseries/{route}", query_string={"regex": regex, "rows": 50}).json
    return sorted(c["tag"] for c in answer["cards"]) if route == "cards" else sorted(answer["tags"])


@pytest.mark.parametrize("route", ["cards", "search"])
def test_search_is_case_insensitive_and_unanchored(client: Any, route: str) -> None:
    assert _tags(client, route, "LOSS") == ["eval/loss", "train/Loss"]
    assert _tags(client, route, "^acc$") == ["acc"]
    assert _tags(client, route, r"(a+)+$") == []  # linear time: answers at once, and correctly
    assert _tags(client, route, r"^(a|aa)+!$") == [EVIL_TAG]


@pytest.mark.parametrize("route", ["cards", "search"])
@pytest.mark.parametrize("regex", [r"(l)\1", "(?=loss)", "(?<!x)loss"])
def test_patterns_re2_cannot_match_are_400(client: Any, route: str, regex: str) -> None:
    # Before: Python's re accepted them (200); backreferences and lookaround backtrack.
    response = client.get(f"/data/plugin/timeseries/{route}", query_string={"regex": regex})
    assert response.status_code == 400 and "'regex'" in response.json["error"]
