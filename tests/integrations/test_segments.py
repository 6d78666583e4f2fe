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


def test_spread_float64_segments_equal_equal_width_buckets_exactly() -> None:
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(n) * s for n, s in ((500, 1.0), (7, 1e-6), (2, 3.0), (64, 1e6))]
    got = SegmentBucketer([a.size for a in arrays], dtype=np.float64)(np.concatenate(arrays))
    for i, array in enumerate(arrays):
        np.testing.assert_array_equal(got[i], equal_width_buckets(array), err_msg=str(i))


def test_event_bytes_and_scalar_events_equal_the_protos_serialized() -> None:
    from tbkit.integrations._segments import ScalarEvents
    from tbkit.plugins.scalars.summary import simple_scalar_pb
    from tbkit.proto import event_pb2
    from tbkit.record.wire import event_head

    rng = np.random.default_rng(1)
    batch = HistogramBatch(["parameters/0.weight", "gradients/0.bias"])
    scalars = ScalarEvents(["gradient_norms/0.bias", "loss"])
    batch.summary(rng.random((2, 30, 3)))  # the one with metadata
    assert batch.sent_metadata
    for step, wall_time in ((0, 0.0), (1, 12.5), (300, 1.7e9), (2**40 + 3, 1.7e9), (-5, -0.0)):
        buckets = rng.random((2, 30, 3))
        want = event_pb2.Event(wall_time=wall_time, step=step, summary=batch.summary(buckets))
        assert batch.event_bytes(buckets, step, wall_time) == want.SerializeToString()
        values = [float(rng.random()), 1e39]  # beyond float32: written as inf, as add_scalar does
        got = scalars.events(event_head(step, wall_time), np.array(values))
        for data, tag, value in zip(got, scalars.tags, values, strict=True):
            summary = simple_scalar_pb(tag, float(np.float32(value)) if value < 1e38 else np.inf)
            event = event_pb2.Event(wall_time=wall_time, step=step, summary=summary)
            assert data == event.SerializeToString()
            parsed = event_pb2.Event.FromString(data)
            assert parsed.step == step and parsed.summary.value[0].tag == tag
    with pytest.raises(ValueError, match="expected 2 values"):
        scalars.events(b"", np.zeros(3))
