"""Histogram and distribution routes; percentiles against TensorBoard's own compressor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.plugins.histograms.query import BASIS_POINTS, percentiles


def test_tags(client: Any) -> None:
    tags = client.get("/data/plugin/histograms/tags").json
    assert list(tags) == ["train"]
    assert tags["train"]["weights"]["max_step"] == 4


def test_histograms_are_the_stored_buckets(client: Any, tbkit_logdir: Path) -> None:
    answer = client.get("/data/plugin/histograms/histograms?run=train&tag=weights").json
    assert [h["step"] for h in answer] == [0, 1, 2, 3, 4]
    assert [h["wall_time"] for h in answer] == [2000.0, 2001.0, 2002.0, 2003.0, 2004.0]
    frame = tbkit.read(str(tbkit_logdir)).histograms()
    first = frame[(frame.run == "train") & (frame.step == 0)].iloc[0]
    buckets = np.array(answer[0]["buckets"])
    np.testing.assert_array_equal(buckets[:, 2], first["counts"])
    np.testing.assert_array_equal(np.append(buckets[:, 0], buckets[-1, 1]), first["edges"])
    assert buckets[:, 2].sum() == 500


def test_points_keeps_the_latest(client: Any) -> None:
    answer = client.get("/data/plugin/histograms/histograms?run=train&tag=weights&points=2").json
    assert len(answer) == 2 and answer[-1]["step"] == 4


@pytest.mark.interop
def test_percentiles_equal_tensorboards_compressor() -> None:
    from tensorboard.plugins.distribution.compressor import compress_histogram

    rng = np.random.default_rng(11)
    cases = [np.zeros((0, 3)), np.array([[0.0, 1.0, 0.0]]), np.array([[-1.0, 1.0, 5.0]])]
    for _ in range(500):
        k = int(rng.integers(1, 12))
        edges = np.sort(rng.normal(size=k + 1)) * 10
        counts = rng.integers(0, 5, size=k).astype(float)
        counts[rng.random(k) < 0.3] = 0
        cases.append(np.stack([edges[:-1], edges[1:], counts], axis=1))
    for buckets in cases:
        expected = [value for _, value in compress_histogram(buckets.tolist())]
        assert percentiles(buckets) == expected


def test_distributions_route(client: Any) -> None:
    answer = client.get("/data/plugin/histograms/distributions?run=train&tag=weights").json
    histograms = client.get("/data/plugin/histograms/histograms?run=train&tag=weights").json
    assert len(answer) == 5
    for dist, hist in zip(answer, histograms, strict=True):
        assert dist["bps"] == list(BASIS_POINTS)
        assert dist["values"] == percentiles(np.array(hist["buckets"]))
        assert dist["values"] == sorted(dist["values"])
    medians = [d["values"][4] for d in answer]
    assert medians == sorted(medians)  # the fixture's mean grows with the step


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("run=train", 400),
        ("tag=weights", 400),
        ("run=nope&tag=weights", 404),
        ("run=train&tag=nope", 404),
        ("run=eval&tag=weights", 404),
        ("run=train&tag=weights&points=0", 400),
        ("run=train&tag=weights&points=many", 400),
    ],
)
@pytest.mark.parametrize("route", ["histograms", "distributions"])
def test_errors(client: Any, route: str, query: str, status: int) -> None:
    response = client.get(f"/data/plugin/histograms/{route}?{query}")
    assert response.status_code == status and "error" in response.json
