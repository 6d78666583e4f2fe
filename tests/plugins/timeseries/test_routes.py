"""The time-series listing: one card per tag, with the runs that have it."""

from __future__ import annotations

from typing import Any

from tests.server._logdirs import XSS_RUN, XSS_TAG


def test_cards(client: Any) -> None:
    cards = client.get("/data/plugin/timeseries/tags").json
    assert set(cards) == {"scalars", "histograms", "images"}
    assert cards["scalars"]["loss"] == ["eval", "train"]
    assert cards["scalars"]["constant"] == ["train"]
    assert cards["scalars"][XSS_TAG] == [XSS_RUN]
    assert cards["histograms"] == {"weights": ["train"]}
    assert cards["images"] == {"pictures": {"runs": ["train"], "samples": 2}}
