"""The compiled core gives what the pure-Python path gives: same records, problems, offsets, scalars."""

from __future__ import annotations

import struct

import google_crc32c
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit._tensors import make_tensor_proto
from tbkit.proto import event_pb2, summary_pb2
from tbkit.reader import fastscalar
from tbkit.record import wire
from tbkit.record.crc import crc32c_python, masked_crc32c
from tbkit.record.framing import encode_records
from tbkit.record.scan import scan_records
from tests.record._damage import KINDS, damage
from tests.record._paths import _native, extract_both, path, scan_both

# -- CRC-32C ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 2**32 - 1))
def test_crc32c_matches_google_crc32c_on_both_implementations(data, init):
    want = google_crc32c.value(data)
    assert _native.crc32c(data) == _native.crc32c_portable(data) == want == crc32c_python(data)
    continued = google_crc32c.extend(init, data)
    assert _native.crc32c(data, init) == _native.crc32c_portable(data, init) == continued


def test_crc32c_check_value():
    assert _native.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert _native.crc32c(bytes(10_000)) == google_crc32c.value(bytes(10_000))  # the GIL-free branch


# -- scalar events in every recognised layout and a few that are not ------------------------


def _value(tag: str, form: str, x: float) -> summary_pb2.Summary.Value:
    if form == "simple":
        return summary_pb2.Summary.Value(tag=tag, simple_value=x)
    if form == "i32":
        return summary_pb2.Summary.Value(tag=tag, tensor=make_tensor_proto(np.asarray(7, dtype=np.int32)))
    dtype = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[form]
    with np.errstate(over="ignore"):
        array = np.asarray(x, dtype=dtype)
    return summary_pb2.Summary.Value(tag=tag, tensor=make_tensor_proto(array))


def _packed(tag: str, dtype: int, key: int, payload: bytes) -> summary_pb2.Summary.Value:
    """A rank-0 tensor whose value sits in ``float_val``/``double_val`` (``key``) as given bytes."""
    tensor = bytes((0x08, dtype, 0x12, 0x00, key, len(payload))) + payload
    value = summary_pb2.Summary.Value(tag=tag)
    value.MergeFromString(bytes((0x42, len(tensor))) + tensor)
    return value


def _event(step: int, wall: float, values: list[summary_pb2.Summary.Value]) -> bytes:
    event = event_pb2.Event(wall_time=wall, step=step, summary=summary_pb2.Summary(value=values))
    return event.SerializeToString()


tags = st.one_of(
    st.text(min_size=0, max_size=140),
    st.sampled_from(["loss", "a", "train/acc", "x" * 127, "y" * 128, "é/ü", "\x00"]),
)
forms = st.sampled_from(["simple", "f32", "f64", "i32", "f16", "float_val", "double_val", "two", "none"])
steps = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-3, 300))
values32 = st.floats(width=32)


@st.composite
def scalar_events(draw) -> bytes:
    tag, form, x = draw(tags), draw(forms), draw(values32)
    step, wall = draw(steps), draw(st.floats(allow_nan=True, allow_infinity=True))
    if form == "float_val":
        values = [_packed(tag, 1, 0x2A, struct.pack("<f", x))]
    elif form == "double_val":
        values = [_packed(tag, 2, 0x32, struct.pack("<d", x))]
    elif form == "two":
        values = [_value(tag, "simple", x), _value(tag + "2", "simple", x)]
    elif form == "none":
        values = []
    else:
        values = [_value(tag, form, x)]
    return _event(step, wall, values)


def _bounds(raws: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return starts, lengths


@settings(max_examples=150, deadline=None)
@given(st.lists(scalar_events(), min_size=1, max_size=25))
def test_extract_agrees_on_every_layout(raws):
    starts, lengths = _bounds(raws)
    extract_both(b"".join(raws) + bytes(16), starts, lengths)


@settings(max_examples=300, deadline=None)
@given(st.lists(scalar_events(), min_size=1, max_size=12), st.data())
def test_extract_agrees_on_damaged_events(raws, data):
    """Flipped, overwritten, inserted and cut bytes inside the events (framing given): same contents."""
    buf = bytearray(b"".join(raws))
    starts, lengths = _bounds(raws)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(buf) - 1))
        how = data.draw(st.sampled_from(["flip", "set", "cut"]))
        if how == "flip":
            buf[pos] ^= data.draw(st.integers(1, 255))
        elif how == "set":
            buf[pos] = data.draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF, 0x0A, 0x15, 0x2A, 0x42]))
        else:  # a record's length cut short (its bytes stay)
            i = data.draw(st.integers(0, len(raws) - 1))
            lengths[i] = data.draw(st.integers(0, int(lengths[i])))
    extract_both(bytes(buf) + bytes(16), starts, lengths)


def test_extract_utf8_checks_are_python_s():
    # a surrogate, an overlong form, above U+10FFFF, a stray byte, a cut sequence
    bad = [b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xff", b"ok\xe2\x82"]
    raws = []
    for raw_tag in [*bad, b"fine", "é".encode()]:
        value = wire.length_delimited(wire.VALUE_TAG, raw_tag) + b"\x15" + struct.pack("<f", 1.0)
        summary = wire.length_delimited(wire.SUMMARY_VALUE, value)
        raws.append(wire.event_head(5, 1.0) + wire.length_delimited(wire.EVENT_SUMMARY, summary))
    starts, lengths = _bounds(raws)
    got = extract_both(b"".join(raws) + bytes(16), starts, lengths)
    assert got.tags == ["é", "fine"]  # by tag length first
    assert got.handled.tolist() == [False] * len(bad) + [True, True]


def test_extract_tag_order_when_tags_share_a_grouping_slot():
    """Thousands of tags of one length (so slots collide) and of several lengths: same tags, same ids."""
    names = [f"m/{i:05d}" for i in range(5000)] + [f"t{i}" for i in range(300)]
    raws = [
        _event(r + 1, 1.5 + r, [_value(t, "simple", float(i))]) for r in range(2) for i, t in enumerate(names)
    ]
    starts, lengths = _bounds(raws)
    got = extract_both(b"".join(raws) + bytes(16), starts, lengths)
    assert len(got.index) == len(raws)


def test_extract_scalars_among_other_records():
    other = b"\x09" + bytes(30)
    raws = [_event(1, 1.0, [_value("a", "simple", 1.0)]), other, _event(2, 2.0, [_value("b", "f64", 2)])]
    starts, lengths = _bounds(raws)
    got = extract_both(b"".join(raws) + bytes(16), starts, lengths)
    assert got.index.tolist() == [0, 2] and got.values.tolist() == [1.0, 2.0]
    empty = extract_both(b"", np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert len(empty.handled) == 0


def test_extract_refuses_records_outside_the_buffer():
    raw = _event(1, 1.0, [_value("a", "simple", 1.0)])
    with path("1"), pytest.raises(ValueError, match="outside"):
        fastscalar.extract(raw + bytes(16), np.array([10]), np.array([len(raw) + 10]))


# -- framing, on good and damaged buffers ---------------------------------------------------


payloads = st.lists(st.binary(max_size=600), max_size=30)


@settings(max_examples=100, deadline=None)
@given(payloads)
def test_scan_agrees_on_intact_buffers(items):
    buf = encode_records(items)
    got = scan_both(buf)
    assert got.end == len(buf) and len(got.starts) == len(items)


@st.composite
def damaged(draw) -> bytes:
    """Records with flipped bytes, truncations, inserted garbage or huge (checksummed) lengths."""
    items = draw(st.lists(st.binary(max_size=80), min_size=1, max_size=15))
    buf = bytearray(encode_records(items))
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from([*KINDS, "huge", "zero"]))
        pos = draw(st.integers(0, len(buf)))
        if how == "huge":  # a valid header announcing more bytes than any file holds
            length = struct.pack("<Q", draw(st.sampled_from([2**24, 2**31, 2**63 - 1, 2**64 - 1, 10**6])))
            buf[pos:pos] = length + struct.pack("<I", masked_crc32c(length))
        elif how == "zero":
            buf[pos:pos] = bytes(draw(st.integers(1, 40)))
        else:
            damage(draw, buf, how, pos, record=st.binary(max_size=20), insert_max=40)
        if not buf:
            buf = bytearray(b"\x01")
    return bytes(buf)


@settings(max_examples=400, deadline=None)
@given(damaged(), st.booleans())
def test_scan_agrees_on_damaged_buffers(buf, resyncing):
    got = scan_both(buf, resyncing=resyncing)
    assert got.end <= len(buf)


@settings(max_examples=150, deadline=None)
@given(damaged(), st.data())
def test_scan_agrees_when_resumed(buf, data):
    """Scanning in two calls (as the loader does when more bytes come) agrees on both paths too."""
    cut = data.draw(st.integers(0, len(buf)))
    first = scan_both(buf[:cut])
    scan_both(buf, first.end, resyncing=first.resyncing)
    scan_both(buf, data.draw(st.integers(0, len(buf) + 3)))


def test_scan_cases_by_hand():
    good = encode_records([b"abc", b"defgh"])
    huge = struct.pack("<Q", 2**64 - 1)
    huge += struct.pack("<I", masked_crc32c(huge))
    cases = [
        b"",
        good,
        good[:-1],
        good + b"\x99" * 30,
        b"\x99" * 30 + good,
        huge + good,
        good + huge,
        good[:13] + b"\x00" + good[14:],  # a bad data checksum: the framing still holds
        bytes(100) + good,
    ]
    for buf in cases:
        scan_both(buf)
        scan_both(buf, resyncing=True)
    got = scan_both(good + b"\x99" * 30 + encode_records([b"zz"]))
    assert got.problems == [(len(good), "bad length checksum")] and got.lengths.tolist() == [3, 5, 2]
    assert scan_both(good[:13] + b"\x00" + good[14:]).problems == [(0, "bad data checksum")]


def test_threads_scan_and_extract_at_once():
    """The GIL is released around the byte work: threads running at once get what one thread gets."""
    from concurrent.futures import ThreadPoolExecutor

    bufs = []
    for k in range(8):
        raws = [_event(s, 1.0 + s, [_value(f"tag{k}/{s % 7}", "f32", s * 0.5)]) for s in range(1, 3000)]
        bufs.append(encode_records(raws) + b"\x99" * k)

    def both(buf: bytes) -> tuple[list[int], list[float], list[str], int]:
        with path("1"):
            got = scan_records(buf)
            fast = fastscalar.extract(buf, got.starts, got.lengths)
        return got.starts.tolist(), fast.values.tolist(), fast.tags, got.end

    alone = [both(b) for b in bufs]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(both, bufs * 3)) == alone * 3
