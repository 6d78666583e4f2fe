"""tbkit.writer._scalars: a batch of scalars is add_scalar's simple_value events, byte for byte."""

from __future__ import annotations

import math
import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.plugins.scalars.summary import simple_scalar_pb
from tbkit.proto import event_pb2
from tbkit.record.framing import iter_records
from tbkit.writer._scalars import ScalarBatchEncoder

ITEMS = st.tuples(
    st.one_of(st.text(min_size=1, max_size=20), st.text(min_size=100, max_size=300)),
    st.one_of(st.floats(), st.sampled_from([1e39, -1e300, 1e-50])),
    st.integers(-(2**63), 2**63 - 1) | st.sampled_from([0, 1, 127, 128, -1]),
    st.floats() | st.sampled_from([0.0, -0.0, 1.7e9, math.nan]),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(ITEMS, min_size=1, max_size=30))
def test_records_are_the_simple_value_events(items) -> None:
    encoder = ScalarBatchEncoder()
    records = [data for _, data in iter_records(encoder.encode(items), path="batch")]
    assert len(records) == len(items)
    for data, (tag, value, step, wall_time) in zip(records, items, strict=True):
        with np.errstate(over="ignore"):
            value32 = float(np.float32(value))
        want = event_pb2.Event(wall_time=wall_time, step=step, summary=simple_scalar_pb(tag, value32))
        # Both head fields are always written (the fixed layout): the canonical bytes leave a
        # zero field out, and are otherwise the same.
        if step and struct.pack("<d", wall_time) != bytes(8):
            assert data == want.SerializeToString()
        else:
            parsed = event_pb2.Event.FromString(data)
            assert parsed.SerializeToString() == want.SerializeToString()
