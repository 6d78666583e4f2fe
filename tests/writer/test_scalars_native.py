"""The writer's scalar batches on the compiled core equal the NumPy encoder's, byte for byte."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.proto import event_pb2
from tbkit.record.framing import iter_records
from tbkit.writer._scalars import ScalarBatchEncoder, summary_tail
from tests.record._paths import _native, path

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

SIGNALLING_NAN = struct.unpack("<d", struct.pack("<Q", 0x7FF0_0000_0000_0001))[0]
tags = st.one_of(
    st.sampled_from(["loss", "train/metric_0", "é" * 70, "x" * 200]),
    st.text(min_size=1, max_size=30),
)
values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e39, -1e39, 1e-50, SIGNALLING_NAN]),
)
steps = st.one_of(st.integers(-(2**63), 2**63 - 1), st.sampled_from([0, 1, 127, 128, -1, 2**35]))
walls = st.one_of(st.floats(allow_nan=False), st.sampled_from([0.0, 1.7e9, -1.0]))
batches = st.lists(st.tuples(tags, values, steps, walls), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.lists(batches, min_size=1, max_size=3))
def test_batches_are_the_numpy_encoders_bytes(sequence):
    """Batch after batch (new tags coming in later ones), one encoder on each path."""
    fast, slow = ScalarBatchEncoder(), ScalarBatchEncoder()
    for items in sequence:
        with path("1"):
            got = fast.encode(items)
        with path("0"):
            want = slow.encode(items)
        assert got == want
        assert got == slow.encode_numpy(items)
    assert fast.tags == slow.tags


def test_records_read_back_as_the_events_written():
    items = [("a", 0.5, 3, 1.5), ("b/c", -2.0, -1, 2.5), ("a", math.inf, 2**40, 3.5)]
    with path("1"):
        data = ScalarBatchEncoder().encode(items)
    events = [event_pb2.Event.FromString(record) for _, record in iter_records(data, path="memory")]
    got = [(e.summary.value[0].tag, e.summary.value[0].simple_value, e.step, e.wall_time) for e in events]
    assert got == items


def test_new_tags_are_none_and_other_forms_are_left_to_numpy():
    assert _native.encode_scalars([("new", 1.0, 1, 1.0)], {}) is None
    tails = {"t": summary_tail("t")}
    for item in [("t", 1, 1, 1.0), ("t", 1.0, 1.0, 1.0), ("t", 1.0, 2**64, 1.0), ["t", 1.0, 1, 1.0]]:
        assert _native.encode_scalars([item], tails) is NotImplemented
    assert _native.encode_scalars([], tails) == b""


def test_an_item_outside_the_core_s_form_is_encoded_by_numpy():
    """An int value (outside the core's form) in a batch: the same bytes as the NumPy encoder's."""
    items = [("t", 1.0, 1, 1.0), ("t", 2, 2, 2.0)]
    with path("1"):
        got = ScalarBatchEncoder().encode(items)
    assert got == ScalarBatchEncoder().encode_numpy(items)
