"""tbkit.record.wire: every hand-written byte equals what protobuf's ``SerializeToString()`` writes."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tbkit.record import wire

INT64 = st.integers(-(2**63), 2**63 - 1)
STEPS = st.one_of(INT64, st.sampled_from([0, 1, -1, 127, 128, 2**63 - 1, -(2**63)]))
WALL_TIMES = st.one_of(
    st.floats(),  # NaN, ±inf, subnormals, -0.0 included
    st.sampled_from([0.0, -0.0, math.nan, -math.nan, 1e308, -1.5, 1.7e9, 5e-324]),
    st.integers(0, 2**64 - 1).map(lambda bits: struct.unpack("<d", struct.pack("<Q", bits))[0]),
)
TAGS = st.one_of(st.text(max_size=20), st.text(min_size=100, max_size=400), st.just("t" * 20000))
FLOAT32 = st.floats(width=32)

_WIRE_TYPE = {
    FieldDescriptor.TYPE_DOUBLE: wire.FIXED64,
    FieldDescriptor.TYPE_FLOAT: wire.FIXED32,
    FieldDescriptor.TYPE_INT64: wire.VARINT,
    FieldDescriptor.TYPE_ENUM: wire.VARINT,
    FieldDescriptor.TYPE_STRING: wire.LEN,
    FieldDescriptor.TYPE_BYTES: wire.LEN,
    FieldDescriptor.TYPE_MESSAGE: wire.LEN,
}


@pytest.mark.parametrize(
    ("constant", "message", "field"),
    [
        ("EVENT_WALL_TIME", event_pb2.Event, "wall_time"),
        ("EVENT_STEP", event_pb2.Event, "step"),
        ("EVENT_SUMMARY", event_pb2.Event, "summary"),
        ("SUMMARY_VALUE", summary_pb2.Summary, "value"),
        ("VALUE_TAG", summary_pb2.Summary.Value, "tag"),
        ("VALUE_SIMPLE_VALUE", summary_pb2.Summary.Value, "simple_value"),
        ("VALUE_TENSOR", summary_pb2.Summary.Value, "tensor"),
        ("VALUE_METADATA", summary_pb2.Summary.Value, "metadata"),
        ("TENSOR_DTYPE", tensor_pb2.TensorProto, "dtype"),
        ("TENSOR_SHAPE", tensor_pb2.TensorProto, "tensor_shape"),
        ("TENSOR_CONTENT", tensor_pb2.TensorProto, "tensor_content"),
        ("TENSOR_FLOAT_VAL", tensor_pb2.TensorProto, "float_val"),
        ("TENSOR_DOUBLE_VAL", tensor_pb2.TensorProto, "double_val"),
    ],
)
def test_keys_are_the_protos_field_numbers_and_wire_types(constant, message, field) -> None:
    descriptor = message.DESCRIPTOR.fields_by_name[field]
    wire_type = wire.LEN if descriptor.is_packed else _WIRE_TYPE[descriptor.type]
    assert getattr(wire, constant) == wire.key(descriptor.number, wire_type)


@settings(max_examples=300, deadline=None)
@given(st.one_of(INT64, st.integers(0, 2**64 - 1)))
def test_varint_equals_protobufs(n: int) -> None:
    if -(2**63) <= n < 2**63 and n:  # int64: Event.step
        assert bytes([wire.EVENT_STEP]) + wire.varint(n) == event_pb2.Event(step=n).SerializeToString()
    if n >= 0:  # uint64: a packed uint64_val of one value, whose length is the varint's
        got = wire.field_head(wire.key(17, wire.LEN), len(wire.varint(n))) + wire.varint(n)
        assert got == tensor_pb2.TensorProto(uint64_val=[n]).SerializeToString()
    u8 = np.frombuffer(wire.varint(n) + b"\x00", dtype=np.uint8)
    value, count, ok = wire.decode_varints(u8, np.array([0]), wire.MAX_VARINT_SIZE)
    assert (int(value[0]), int(count[0]), bool(ok[0])) == (n % 2**64, len(wire.varint(n)), True)


@pytest.mark.parametrize("n", [2**64, -(2**63) - 1])
def test_varint_refuses_what_no_int64_or_uint64_is(n: int) -> None:
    with pytest.raises(ValueError, match="range"):
        wire.varint(n)


@settings(max_examples=100, deadline=None)
@given(st.lists(STEPS, min_size=1, max_size=50))
def test_vectorised_varints_equal_one_at_a_time(steps: list[int]) -> None:
    u = np.array(steps, dtype=np.int64).view(np.uint64)
    sizes = wire.varint_sizes(u)
    assert sizes.tolist() == [len(wire.varint(n)) for n in steps]
    width = int(sizes.max())
    out = np.full((len(steps), width + 2), 0xEE, dtype=np.uint8)
    wire.put_varints(u, sizes, out[:, 1 : 1 + width])  # a view, as the batch encoder passes
    for row, n in zip(out, steps, strict=True):
        encoded = wire.varint(n)
        assert row[1 : 1 + width].tobytes() == encoded + bytes(width - len(encoded))
        assert row[0] == row[-1] == 0xEE
    buf = b"".join(wire.varint(n) for n in steps)
    starts = np.cumsum([0] + [len(wire.varint(n)) for n in steps[:-1]])
    value, count, ok = wire.decode_varints(np.frombuffer(buf, dtype=np.uint8), starts, wire.MAX_VARINT_SIZE)
    assert value.view(np.int64).tolist() == steps and count.tolist() == sizes.tolist() and ok.all()


def test_decode_varints_flags_a_varint_longer_than_its_limit() -> None:
    u8 = np.frombuffer(wire.varint(300) + wire.varint(5), dtype=np.uint8)
    value, count, ok = wire.decode_varints(u8, np.array([0, 2]), 1)
    assert ok.tolist() == [False, True] and value.tolist()[1] == 5 and count.tolist() == [1, 1]


@settings(max_examples=300, deadline=None)
@given(STEPS, WALL_TIMES)
def test_event_head_equals_protobufs(step: int, wall_time: float) -> None:
    assert (
        wire.event_head(step, wall_time)
        == event_pb2.Event(wall_time=wall_time, step=step).SerializeToString()
    )


@settings(max_examples=200, deadline=None)
@given(STEPS, WALL_TIMES)
def test_fixed_event_head_parses_as_the_same_event(step: int, wall_time: float) -> None:
    encoded = wire.varint(step)
    head = bytearray(wire.fixed_event_head(len(encoded)))
    head[wire.FIXED_WALL_TIME_AT : wire.FIXED_WALL_TIME_AT + 8] = struct.pack("<d", wall_time)
    head[wire.FIXED_STEP_AT :] = encoded
    assert head[wire.FIXED_STEP_KEY_AT] == wire.EVENT_STEP
    parsed = event_pb2.Event.FromString(bytes(head))
    assert parsed.step == step
    assert struct.pack("<d", parsed.wall_time) == struct.pack("<d", wall_time)
    if step and struct.pack("<d", wall_time) != bytes(8):  # no field the canonical form leaves out
        assert bytes(head) == wire.event_head(step, wall_time)


def _tag(tag: str) -> bytes:
    """``Value.tag``: left out when empty (proto3), as every zero field is."""
    return wire.length_delimited(wire.VALUE_TAG, tag.encode()) if tag else b""


def _simple_value(tag: str, value: float) -> bytes:
    return _tag(tag) + bytes([wire.VALUE_SIMPLE_VALUE]) + struct.pack("<f", value)  # a oneof: always there


@settings(max_examples=300, deadline=None)
@given(TAGS, STEPS, WALL_TIMES, FLOAT32)
def test_simple_value_event_equals_protobufs(tag: str, step: int, wall_time: float, value: float) -> None:
    summary = wire.length_delimited(wire.SUMMARY_VALUE, _simple_value(tag, value))
    got = wire.event_head(step, wall_time) + wire.length_delimited(wire.EVENT_SUMMARY, summary)
    want = event_pb2.Event(
        wall_time=wall_time,
        step=step,
        summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]),
    )
    assert got == want.SerializeToString()


@settings(max_examples=300, deadline=None)
@given(
    TAGS,
    STEPS,
    WALL_TIMES,
    st.sampled_from(["content", "val"]),
    st.sampled_from([types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE]),
    st.floats(),
    st.booleans(),
)
def test_rank0_tensor_event_equals_protobufs(
    tag, step, wall_time, where, dtype, value, with_metadata
) -> None:
    double = dtype == types_pb2.DT_DOUBLE
    with np.errstate(over="ignore"):
        raw = np.asarray(value, dtype="<f8" if double else "<f4").tobytes()
    tensor = tensor_pb2.TensorProto(dtype=dtype, tensor_shape=tensor_shape_pb2.TensorShapeProto())
    if where == "content":
        tensor.tensor_content = raw
        value_key = wire.TENSOR_CONTENT
    else:
        number = np.frombuffer(raw, dtype="<f8" if double else "<f4")[0]
        (tensor.double_val if double else tensor.float_val).append(float(number))
        value_key = wire.TENSOR_DOUBLE_VAL if double else wire.TENSOR_FLOAT_VAL
    proto_value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    value_bytes = _tag(tag) + wire.rank0_tensor_prefix(dtype, value_key) + raw
    if with_metadata:
        proto_value.metadata.plugin_data.plugin_name = "scalars"
        proto_value.metadata.display_name = tag
        value_bytes += wire.length_delimited(wire.VALUE_METADATA, proto_value.metadata.SerializeToString())
    summary = wire.length_delimited(wire.SUMMARY_VALUE, value_bytes)
    got = wire.event_head(step, wall_time) + wire.length_delimited(wire.EVENT_SUMMARY, summary)
    want = event_pb2.Event(wall_time=wall_time, step=step, summary=summary_pb2.Summary(value=[proto_value]))
    assert got == want.SerializeToString()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TAGS, FLOAT32), min_size=1, max_size=5), STEPS, WALL_TIMES)
def test_summary_of_several_values_equals_protobufs(values, step, wall_time) -> None:
    summary = b"".join(wire.length_delimited(wire.SUMMARY_VALUE, _simple_value(t, v)) for t, v in values)
    want = event_pb2.Event(
        wall_time=wall_time,
        step=step,
        summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag=t, simple_value=v) for t, v in values]
        ),
    )
    got = wire.event_head(step, wall_time) + wire.field_head(wire.EVENT_SUMMARY, len(summary)) + summary
    assert got == want.SerializeToString()
