"""tbkit.integrations._segments: many histograms at once equal add_histogram's, one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit.integrations._segments import HistogramBatch, SegmentBucketer, segment_buckets
from tbkit.plugins.histograms.summary import equal_width_buckets, histogram_pb


def _arrays(dtype) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(n) * scale for n, scale in ((3000, 1.0), (64, 1e-3), (10, 50.0), (1, 1.0))]
    arrays += [
        np.full(5, 2.0),
        np.array([1.0, np.nan, 3.0]),
        np.array([np.inf, -1.0, 2.0]),
        np.array([np.nan]),
    ]
    return [a.astype(dtype) for a in arrays]


def test_float64_segments_equal_equal_width_buckets_exactly() -> None:
    arrays = _arrays(np.float64)
    got = segment_buckets(np.concatenate(arrays), [a.size for a in arrays])
    for i, array in enumerate(arrays):
        np.testing.assert_array_equal(got[i], equal_width_buckets(array), err_msg=str(i))


def test_float32_segments_have_the_same_edges_and_at_most_rounding_moves() -> None:
    arrays = _arrays(np.float32)
    bucketer = SegmentBucketer([a.size for a in arrays])
    flat = np.concatenate(arrays)
    for _ in range(2):  # the scratch memory is reused
        got = bucketer(flat)
        for i, array in enumerate(arrays):
            want = equal_width_buckets(array)
            np.testing.assert_array_equal(got[i][:, :2], want[:, :2])
            assert got[i][:, 2].sum() == want[:, 2].sum()
            assert np.abs(got[i][:, 2] - want[:, 2]).sum() <= 2
    norms = bucketer.norms(flat)
    for i, array in enumerate(arrays):
        assert norms[i] == pytest.approx(np.linalg.norm(array.astype(np.float64)), nan_ok=True)


def test_bad_layouts_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        SegmentBucketer([3, 0])
    with pytest.raises(ValueError, match="add up"):
        SegmentBucketer([3, 2])(np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError, match="expected 2"):
        HistogramBatch(["a", "b"]).summary(np.zeros((3, 30, 3)))


def test_histogram_batch_equals_histogram_pb_and_sends_metadata_once() -> None:
    rng = np.random.default_rng(0)
    batch = HistogramBatch(["w", "b"])
    for first in (True, False):
        buckets = rng.random((2, 30, 3))
        summary = batch.summary(buckets)
        for value, tag, rows in zip(summary.value, ["w", "b"], buckets, strict=True):
            want = histogram_pb(tag, rows).value[0]
            assert value.tensor == want.tensor and value.tag == tag
            assert value.HasField("metadata") == first
            if first:
                assert value.metadata == want.metadata
