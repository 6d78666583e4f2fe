"""Per-series answers of the scalars route are reused until the series changes."""

from __future__ import annotations

import math

import pytest

import tbkit
from tbkit.plugins.scalars import query
from tbkit.plugins.scalars.payloads import PayloadCache, version_of, version_of_columns
from tbkit.server.app import create_app

URL = "/data/plugin/scalars/scalars"


def test_lru_is_bounded_in_bytes_and_keeps_the_recently_used():
    cache = PayloadCache(max_bytes=10)
    keys = [PayloadCache.key("r", "t", (i,)) for i in range(4)]
    cache.put(keys[0], 1, b"aaaa")
    cache.put(keys[1], 1, b"bbbb")
    assert cache.get(keys[0], 1) == b"aaaa"  # now the most recent
    cache.put(keys[2], 1, b"cccc")  # 12 bytes: the least recent (keys[1]) goes
    assert cache.get(keys[1], 1) is None and cache.get(keys[0], 1) == b"aaaa" and len(cache) == 2
    cache.put(keys[3], 1, b"x" * 11)  # larger than the whole cache: not kept
    assert cache.get(keys[3], 1) is None and len(cache) == 2


def test_a_newer_version_replaces_the_older_in_its_slot():
    cache = PayloadCache(max_bytes=100)
    slot = PayloadCache.key("r", "t", (1000,))
    for version in range(5):
        cache.put(slot, version, b"v%d" % version)
    assert len(cache) == 1 and cache.get(slot, 4) == b"v4" and cache.get(slot, 3) is None


def test_a_nan_last_value_gives_a_version_equal_to_itself():
    import numpy as np

    columns = (np.array([1, 2]), np.array([0.5, 1.5]), np.array([0.0, math.nan]))
    assert version_of_columns(*columns) == version_of(2, 2, 1.5, math.nan) == (2, 2, 1.5, "nan")


@pytest.fixture
def live(tmp_path, monkeypatch):
    writers = {run: tbkit.SummaryWriter(str(tmp_path / run), flush_secs=0.01) for run in ("a", "b")}
    for run, w in writers.items():
        for step in range(50):
            w.add_scalar("loss", step * (2.0 if run == "a" else 3.0), step)
        w.flush()
    logdir = tbkit.read(str(tmp_path))
    computed: list[int] = []
    original = query.series_json

    def counting(columns, **kwargs):
        computed.append(len(columns[0]))
        return original(columns, **kwargs)

    monkeypatch.setattr(query, "series_json", counting)
    yield logdir, writers, computed, create_app(logdir.provider).test_client()
    for w in writers.values():
        w.close()


def test_unchanged_series_are_answered_from_the_cache(live):
    logdir, writers, computed, client = live
    first = client.get(f"{URL}?tag=loss").json
    assert computed == [50, 50]
    again = client.get(f"{URL}?tag=loss").json
    assert again == first and computed == [50, 50]  # nothing computed again
    only_b = client.get(f"{URL}?tag=loss&runs=b").json
    assert only_b == {"b": first["b"]} and len(computed) == 2
    client.get(f"{URL}?tag=loss&points=10")  # other parameters: other answers
    assert computed == [50, 50, 50, 50]

    writers["a"].add_scalar("loss", 999.0, 50)
    writers["a"].flush()
    logdir.reload()
    after = client.get(f"{URL}?tag=loss").json
    assert computed[-1] == 51 and len(computed) == 5  # only the run that changed
    assert after["a"]["value"][-1] == 999.0 and after["a"]["total"] == 51
    assert after["b"] == first["b"]


def test_unknown_tag_is_still_a_404(live):
    _, _, _, client = live
    client.get(f"{URL}?tag=loss")
    assert client.get(f"{URL}?tag=nope").status_code == 404
    assert client.get(f"{URL}?tag=loss&runs=a").status_code == 200
