"""tbkit.writer._scalars: a batch of scalars is add_scalar's simple_value events, byte for byte."""

from __future__ import annotations

import hashlib
import math
import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.plugins.scalars.summary import simple_scalar_pb, simple_scalar_template
from tbkit.proto import event_pb2
from tbkit.record import wire
from tbkit.record.framing import iter_records
from tbkit.writer._scalars import ScalarBatchEncoder, summary_tail

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


def test_summary_tail_is_the_protobuf_serialization() -> None:
    for tag in ["a", "train/loss", "é" * 59, "é" * 70, "x" * 300, *("y" * n for n in range(115, 122))]:
        prefix, suffix = simple_scalar_template(tag)
        summary = prefix + bytes(4) + suffix
        assert suffix == b""  # the value comes last: the encoder relies on it
        assert summary_tail(tag) == wire.length_delimited(wire.EVENT_SUMMARY, summary)


def test_bytes_are_those_written_before() -> None:
    # The digest of what the encoder wrote before its tables were slotted: the same calls
    # must keep giving the same bytes (torch's simple_value events, fixed event head).
    steps = [0, 1, 127, 128, 300, 2**21, 2**35, 2**62, -1, -(2**63), 2**63 - 1]
    values = [0.0, -0.0, 0.5, 1e39, -1e39, math.nan, math.inf, 1e-50, 3.25]
    walls = [0.0, -0.0, 1.7e9, 1.7e9 + 0.123, math.nan]
    items = [
        (
            f"tag/{i % 37}" + "é" * (i % 3) + "x" * (130 if i % 50 == 0 else 0),
            values[i % 9],
            steps[i % 11],
            walls[i % 5],
        )
        for i in range(300)
    ]
    encoder = ScalarBatchEncoder()
    data = encoder.encode(items) + encoder.encode(items[::-1])
    assert len(data) == 31404
    assert (
        hashlib.sha256(data).hexdigest() == "52258ada66ed3b8b70e57d4fedbd077ad3948b2448e7e6f39035e8f4de498d18"
    )


def test_many_tags_in_one_batch_and_one_at_a_time_give_the_same_records() -> None:
    items = [(f"t/{i}", i / 7, step, 1.7e9 + i) for step in (0, 200) for i in range(3000)]
    together = ScalarBatchEncoder().encode(items)
    encoder = ScalarBatchEncoder()
    one_by_one = b"".join(encoder.encode([item]) for item in items)
    assert together == one_by_one
    events = [event_pb2.Event.FromString(data) for _, data in iter_records(together, path="batch")]
    assert [(e.summary.value[0].tag, e.step) for e in events] == [(tag, step) for tag, _, step, _ in items]
    assert [e.summary.value[0].simple_value for e in events] == [float(np.float32(v)) for _, v, _, _ in items]
    assert encoder.tags == 3000


def _table_buffers(encoder: ScalarBatchEncoder) -> dict[str, int]:
    """The address of every NumPy table the encoder holds, by attribute."""
    return {
        name: value.__array_interface__["data"][0]
        for name, value in vars(encoder).items()
        if isinstance(value, np.ndarray) and value.size
    }


def test_registering_tags_reallocates_the_tables_a_logarithmic_number_of_times() -> None:
    # One new tag per batch, the worst case: growing the tables per tag (np.append) would
    # reallocate them on every one of the 10,000 tags and copy O(n^2) bytes.
    encoder = ScalarBatchEncoder()
    seen: dict[str, int] = {}
    reallocations = 0
    for i in range(10_000):
        encoder.encode([(f"tag/{i}", 1.0, 1, 0.0)])
        buffers = _table_buffers(encoder)
        reallocations += sum(seen.get(name) != address for name, address in buffers.items())
        seen = buffers
    assert buffers, "the encoder keeps its tables as NumPy arrays"
    assert reallocations <= len(buffers) * (math.log2(10_000) + 1)
    assert encoder.growths <= math.log2(10_000) + 1
    # ... and the tables stay within twice what the tags need (10 step lengths per tag).
    assert all(len(getattr(encoder, name)) <= 2 * 10 * 10_000 for name in buffers)
