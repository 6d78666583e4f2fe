"""Downsampling: deterministic, keeps the last point, the same steps across a run's series."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit.errors import InvalidArgumentError
from tbkit.provider import InMemoryProvider, downsample_indices


@pytest.mark.parametrize("n,k", [(10, 3), (1000, 100), (5, 5), (5, 50), (7, 1)])
def test_downsample_keeps_last_is_sorted_and_deterministic(n, k):
    steps = np.arange(n) * 3
    idx = downsample_indices(steps, k)
    assert len(idx) == min(n, k) and idx[-1] == n - 1
    assert np.all(np.diff(idx) > 0)
    assert np.array_equal(idx, downsample_indices(steps.copy(), k))


def test_downsample_zero_and_none():
    assert downsample_indices(np.arange(4), 0).tolist() == []
    assert downsample_indices(np.arange(4), None).tolist() == [0, 1, 2, 3]
    with pytest.raises(InvalidArgumentError):
        downsample_indices(np.arange(4), -1)


def test_downsample_keeps_same_steps_across_series_of_a_run():
    steps = np.arange(0, 5000, 5)
    data = {
        "run": {
            "a": {"points": [(int(s), 0.0, float(s)) for s in steps]},
            "b": {"points": [(int(s), 1.0, -float(s)) for s in steps]},
        }
    }
    got = InMemoryProvider(data).read_scalars("scalars", downsample=50)["run"]
    assert [d.step for d in got["a"]] == [d.step for d in got["b"]]
    assert len(got["a"]) == 50 and got["a"][-1].step == 4995
    chosen = np.array([d.step for d in got["a"]])
    assert chosen.min() < 1000 and chosen.max() > 4000  # spread over the series
