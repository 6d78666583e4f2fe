"""Custom-scalar chart regexes (sent by the page, taken from logged layouts) are matched by RE2."""

from __future__ import annotations

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app

BASE = "/data/plugin/custom_scalars"
EVIL_TAG = "a" * 40 + "!"


def test_chart_regexes_match_at_the_start_in_linear_time_and_refused_ones_are_listed() -> None:
    tags = {name: {"points": [(0, 0.0, 1.0)]} for name in ("loss", "acc/train", "x/loss", EVIL_TAG)}
    client = create_app(InMemoryProvider({"run": tags})).test_client()
    body = {"tags": ["loss", "acc/(train|eval)$", r"(a+)+$", r"(l)\1", "(?=x)x"]}
    answer = client.post(f"{BASE}/scalars", json=body).json
    # Before: the backreference and the lookahead were compiled by re (not listed as invalid),
    # and (a+)+$ backtracked on EVIL_TAG for hours.
    assert answer["invalid"] == [r"(l)\1", "(?=x)x"]
    assert sorted(answer["series"]["run"]) == ["acc/train", "loss"]  # match: x/loss is not taken
