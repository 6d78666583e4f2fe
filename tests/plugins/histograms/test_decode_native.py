"""Legacy histograms migrated on the compiled core equal the pure-Python migration, bit for bit.

The core's ``migrate_histogram`` reads a serialized ``HistogramProto``; where it answers, its
rows must be the bytes of NumPy's ``migrate`` (the float32 rounding, NaN payloads included),
and where it declines (``None``) the caller parses with protobuf, so damaged or unusual bytes
end the same way on both paths: the same rows or the same error.
"""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.plugins.histograms import decode
from tbkit.proto import histogram_pb2, summary_pb2
from tests.record._paths import _native, path

# NumPy warns when its float32 cast overflows or meets a signalling NaN; the core does not
pytestmark = pytest.mark.filterwarnings(
    "ignore:overflow encountered in cast:RuntimeWarning",
    "ignore:invalid value encountered in cast:RuntimeWarning",
)

DBL_MAX = sys.float_info.max
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, DBL_MAX, -DBL_MAX, 3.5e38, -3.5e38, 1e-46, float("inf"), float("-inf")]
NANS = [float("nan"), struct.unpack("<d", struct.pack("<Q", 0x7FF0_0000_0000_0001))[0]]  # quiet, signalling

doubles = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(SPECIAL + NANS),
    st.floats(-1e6, 1e6),
)
counts = st.one_of(st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.25, *NANS, float("inf")]), doubles)


def _key(field: int, wire: int) -> bytes:
    return bytes([field << 3 | wire])


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _double(field: int, v: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", v)


def _packed(field: int, values: list[float]) -> bytes:
    body = struct.pack(f"<{len(values)}d", *values)
    return _key(field, 2) + _varint(len(body)) + body


@st.composite
def histogram_bytes(draw: st.DrawFn) -> bytes:
    """A HistogramProto encoded by hand: scalars repeated or missing, repeated fields packed,
    unpacked or both, in any order, with bucket and limit counts that may disagree."""
    n = draw(st.integers(0, 12))
    parts: list[bytes] = []
    for field in (1, 2, 3, 4, 5):
        parts += [_double(field, v) for v in draw(st.lists(doubles, max_size=2))]
    for field, values in ((6, doubles), (7, counts)):
        size = draw(st.sampled_from([n, n, n, max(n - 1, 0), n + 1, 0]))
        items = draw(st.lists(values, min_size=size, max_size=size))
        form = draw(st.sampled_from(["packed", "unpacked", "split"]))
        if form == "packed":
            parts.append(_packed(field, items))
        elif form == "unpacked":
            parts += [_double(field, v) for v in items]
        else:
            cut = draw(st.integers(0, len(items)))
            parts += [_packed(field, items[:cut]), *(_double(field, v) for v in items[cut:])]
    return b"".join(draw(st.permutations(parts)))


def _python(data: bytes) -> np.ndarray | type[Exception]:
    """The pure-Python answer: the rows, or the type of the error raised."""
    try:
        return decode.migrate_histogram(histogram_pb2.HistogramProto.FromString(data))
    except (DecodeError, ValueError) as exc:
        return type(exc)


def _same(native: bytearray, python: np.ndarray | type[Exception]) -> None:
    assert isinstance(python, np.ndarray), python
    assert python.dtype == np.float32 and python.shape[1:] == (3,)
    assert bytes(native) == python.tobytes()  # bit for bit, NaN payloads and -0.0 included
    rows = np.frombuffer(native, dtype=np.float32).reshape(-1, 3)
    assert decode.decode(rows).tobytes() == decode.decode(python).tobytes()


def _agree(data: bytes) -> bytearray | None:
    native = _native.migrate_histogram(data)
    python = _python(data)
    if native is not None:
        _same(native, python)
    for choice in ("0", "1"):  # the dispatch: the core's rows, or protobuf's answer
        with path(choice):
            try:
                got: np.ndarray | type[Exception] = decode.migrate_bytes(data)
            except (DecodeError, ValueError) as exc:
                got = type(exc)
        if isinstance(python, np.ndarray):
            assert isinstance(got, np.ndarray) and got.tobytes() == python.tobytes()
        else:
            assert got is python
    return native


@settings(max_examples=400, deadline=None)
@given(histogram_bytes())
def test_hand_encoded_histograms_agree(data):
    native = _agree(data)
    if native is None:  # declined only where NumPy refuses too: more buckets than inner edges
        assert _python(data) is ValueError


@settings(max_examples=300, deadline=None)
@given(histogram_bytes(), st.data())
def test_damaged_histograms_agree(data, draw):
    how = draw.draw(st.sampled_from(["truncate", "flip", "insert", "garbage"]))
    if how == "truncate" and data:
        data = data[: draw.draw(st.integers(0, len(data) - 1))]
    elif how == "flip" and data:
        at = draw.draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ draw.draw(st.integers(1, 255))]) + data[at + 1 :]
    elif how == "insert":
        at = draw.draw(st.integers(0, len(data)))
        data = data[:at] + draw.draw(st.binary(min_size=1, max_size=12)) + data[at:]
    else:
        data = draw.draw(st.binary(max_size=64))
    _agree(data)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(doubles, counts), max_size=20),
    doubles,
    doubles,
)
def test_protobuf_serialized_histograms_agree_through_migrate(buckets, lo, hi):
    histo = histogram_pb2.HistogramProto(
        min=lo, max=hi, bucket_limit=[b[0] for b in buckets], bucket=[b[1] for b in buckets]
    )
    value = summary_pb2.Summary.Value(tag="h", histo=histo)
    assert _native.migrate_histogram(histo.SerializeToString()) is not None
    with path("1"):
        fast = decode.migrate(value)
    with path("0"):
        slow = decode.migrate(value)
    assert fast.dtype == slow.dtype == np.float32  # TensorBoard's migrated tensor is float32 too
    assert fast.shape == slow.shape and fast.tobytes() == slow.tobytes()
    assert decode.decode(fast) is fast  # no second copy


@pytest.mark.parametrize(
    ("limits", "buckets", "rows"),
    [
        ([], [], []),
        ([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], []),
        ([-DBL_MAX, 0.0, DBL_MAX], [0.0, 4.0, 0.0], [[-1.0, 2.0, 4.0]]),
        (
            [-DBL_MAX, 0.0, DBL_MAX],
            [3.0, 0.0, 1.0],
            [[-1.0, -DBL_MAX, 3.0], [-DBL_MAX, 0.0, 0.0], [0.0, 2.0, 1.0]],
        ),
    ],
)
def test_edge_cases_on_both_paths(limits, buckets, rows):
    histo = histogram_pb2.HistogramProto(min=-1.0, max=2.0, bucket_limit=limits, bucket=buckets)
    value = summary_pb2.Summary.Value(tag="h", histo=histo)
    want = np.asarray(rows, dtype=np.float32).reshape(-1, 3)
    for choice in ("0", "1"):
        with path(choice):
            got = decode.migrate(value)
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def test_more_buckets_than_edges_is_the_same_error_on_both_paths():
    histo = histogram_pb2.HistogramProto(min=0.0, max=1.0, bucket_limit=[0.5], bucket=[1.0, 0.0, 1.0])
    assert _native.migrate_histogram(histo.SerializeToString()) is None
    messages = []
    for choice in ("0", "1"):
        with path(choice), pytest.raises(ValueError) as info:
            decode.migrate(summary_pb2.Summary.Value(tag="h", histo=histo))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_unknown_fields_and_other_wire_types_are_left_to_protobuf():
    good = _packed(6, [1.0]) + _packed(7, [2.0])
    assert _native.migrate_histogram(good) is not None
    for extra in (
        _key(8, 0) + b"\x01",
        _key(1, 0) + b"\x01",
        _key(6, 5) + b"\0\0\0\0",
        _key(7, 2) + b"\x04abcd",
    ):
        assert _native.migrate_histogram(good + extra) is None
        _agree(good + extra)
