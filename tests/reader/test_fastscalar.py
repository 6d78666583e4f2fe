"""The scalar fast path decodes exactly what a full protobuf parse decodes, or leaves the record alone."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit._tensors import make_tensor_proto
from tbkit.proto import event_pb2, summary_pb2
from tbkit.reader.fastscalar import extract

tags = st.text(min_size=0, max_size=140)
steps = st.integers(-(2**63), 2**63 - 1)
floats = st.floats(allow_nan=False, width=32)


@st.composite
def events(draw):
    tag = draw(tags)
    kind = draw(st.sampled_from(["simple", "f32", "f64", "i32", "two"]))
    if kind == "simple":
        values = [summary_pb2.Summary.Value(tag=tag, simple_value=draw(floats))]
    elif kind == "two":
        values = [summary_pb2.Summary.Value(tag=tag, simple_value=1.0)] * 2
    else:
        dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32}[kind]
        values = [summary_pb2.Summary.Value(tag=tag, tensor=make_tensor_proto(np.asarray(7, dtype=dtype)))]
    return event_pb2.Event(
        wall_time=draw(st.floats(1.0, 2e9)), step=draw(steps), summary=summary_pb2.Summary(value=values)
    )


@settings(max_examples=80, deadline=None)
@given(st.lists(events(), min_size=1, max_size=20))
def test_fast_path_agrees_with_protobuf(evs):
    raws = [e.SerializeToString() for e in evs]
    buf = b"".join(raws) + bytes(16)
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    got = extract(buf, starts, lengths)
    for k, i in enumerate(got.index.tolist()):
        event = evs[i]
        (value,) = event.summary.value
        expected = value.simple_value if value.HasField("simple_value") else 7.0
        assert got.tags[got.tag_ids[k]] == value.tag
        assert (int(got.steps[k]), float(got.wall_times[k]), float(got.values[k])) == (
            event.step,
            event.wall_time,
            expected,
        )
    handled = set(got.index.tolist())
    for i, event in enumerate(evs):
        simple_one = len(event.summary.value) == 1 and event.step != 0 and event.summary.value[0].tag
        dtype_ok = event.summary.value[0].tensor.dtype in (0, 1, 2)
        if simple_one and dtype_ok and len(event.summary.value[0].tag.encode()) < 128:
            assert i in handled  # the common layouts are all recognised
        if not simple_one or not dtype_ok:
            assert i not in handled


def _window(tag_names, rounds=2):
    evs = [
        event_pb2.Event(
            wall_time=1.5 + r,
            step=r + 1,
            summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=t, simple_value=float(i))]),
        )
        for r in range(rounds)
        for i, t in enumerate(tag_names)
    ]
    raws = [e.SerializeToString() for e in evs]
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return evs, extract(b"".join(raws) + bytes(16), starts, lengths)


def test_many_distinct_tags_in_one_window_are_told_apart():
    names = [f"metric/{i:05d}" for i in range(6000)]  # more tags than the grouping table's slots
    evs, got = _window(names)
    assert len(got.index) == len(evs)
    assert [got.tags[i] for i in got.tag_ids.tolist()] == [e.summary.value[0].tag for e in evs]
    assert got.values.tolist() == [e.summary.value[0].simple_value for e in evs]
