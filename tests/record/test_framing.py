"""TFRecord framing: encode/parse round trips, strict iteration, partial and corrupt records."""

from __future__ import annotations

import struct

import google_crc32c
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tbkit.errors import CorruptRecordError, DataError
from tbkit.record.framing import (
    FOOTER_SIZE,
    HEADER_SIZE,
    Status,
    encode_record,
    encode_records,
    iter_records,
    parse_record,
)

PATH = "/logs/run/events.out.tfevents.test"


def _masked(data: bytes) -> int:
    value = google_crc32c.value(data)
    return ((((value >> 15) | (value << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _reference_record(data: bytes) -> bytes:
    # The layout written out field by field: uint64 length, masked CRC of it, data, masked CRC of data.
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))


def _flip(buf: bytes, index: int) -> bytes:
    return buf[:index] + bytes([buf[index] ^ 0x01]) + buf[index + 1 :]


payloads = st.lists(st.binary(max_size=300), max_size=12)


@given(st.binary(max_size=2000))
def test_encode_matches_the_specified_layout(data: bytes) -> None:
    encoded = encode_record(data)
    assert encoded == _reference_record(data)
    assert len(encoded) == HEADER_SIZE + len(data) + FOOTER_SIZE


@given(st.binary(max_size=2000), st.binary(max_size=64))
def test_parse_record_round_trip_at_an_offset(data: bytes, prefix: bytes) -> None:
    buf = prefix + encode_record(data)
    status, parsed, end = parse_record(buf, len(prefix))
    assert status is Status.OK
    assert parsed == data
    assert end == len(buf)


@given(payloads)
def test_iter_records_round_trip(items: list[bytes]) -> None:
    buf = encode_records(items)
    got = list(iter_records(buf, path=PATH))
    assert [data for _, data in got] == items
    offsets = [0]
    for item in items[:-1]:
        offsets.append(offsets[-1] + HEADER_SIZE + len(item) + FOOTER_SIZE)
    assert [offset for offset, _ in got] == (offsets if items else [])


@given(payloads, st.data())
def test_iter_records_from_a_start_offset(items: list[bytes], data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=len(items)))
    start = len(encode_records(items[:k]))
    got = list(iter_records(encode_records(items), path=PATH, start=start))
    assert [d for _, d in got] == items[k:]
    if got:
        assert got[0][0] == start


@given(st.lists(st.binary(max_size=100), min_size=1, max_size=6), st.data())
def test_partial_last_record_ends_iteration_quietly(items: list[bytes], data: st.DataObject) -> None:
    complete = encode_records(items[:-1])
    last = encode_record(items[-1])
    cut = data.draw(st.integers(min_value=0, max_value=len(last) - 1))
    got = list(iter_records(complete + last[:cut], path=PATH))
    assert [d for _, d in got] == items[:-1]


@pytest.mark.parametrize(
    "cut",
    [
        1,  # inside the length
        8,  # after the length, before its CRC
        HEADER_SIZE - 1,  # inside the length CRC
        HEADER_SIZE,  # header complete, no data
        HEADER_SIZE + 3,  # inside the data
        HEADER_SIZE + 10,  # data complete, no footer
        HEADER_SIZE + 10 + FOOTER_SIZE - 1,  # inside the footer
    ],
)
def test_partial_record_each_place(cut: int) -> None:
    first = encode_record(b"first")
    last = encode_record(b"0123456789")
    buf = first + last[:cut]
    assert list(iter_records(buf, path=PATH)) == [(0, b"first")]
    assert parse_record(buf, len(first)) == (Status.PARTIAL, b"", len(first))


@pytest.mark.parametrize("index_in_record", [0, 7])  # length bytes
def test_length_corruption_raises_with_path_and_offset(index_in_record: int) -> None:
    records = [encode_record(b"a" * 10), encode_record(b"b" * 20), encode_record(b"c" * 5)]
    offset = len(records[0])
    buf = _flip(b"".join(records), offset + index_in_record)
    it = iter_records(buf, path=PATH)
    assert next(it) == (0, b"a" * 10)
    with pytest.raises(CorruptRecordError) as info:
        next(it)
    err = info.value
    assert isinstance(err, DataError)
    assert err.path == PATH
    assert err.offset == offset
    assert PATH in str(err) and str(offset) in str(err)
    assert "length" in str(err)


def test_length_crc_corruption_raises() -> None:
    buf = _flip(encode_record(b"payload"), 9)  # inside the length's CRC
    with pytest.raises(CorruptRecordError) as info:
        list(iter_records(buf, path=PATH))
    assert info.value.offset == 0
    assert parse_record(buf, 0).status is Status.BAD_LENGTH_CRC


@pytest.mark.parametrize("where", ["data", "footer"])
def test_data_corruption_raises_with_path_and_offset(where: str) -> None:
    records = [encode_record(b"x" * 7), encode_record(b"y" * 30), encode_record(b"z")]
    offset = len(records[0])
    index = offset + HEADER_SIZE + (5 if where == "data" else 30 + 2)
    buf = _flip(b"".join(records), index)
    with pytest.raises(CorruptRecordError) as info:
        list(iter_records(buf, path=PATH))
    assert info.value.path == PATH
    assert info.value.offset == offset
    assert "data" in str(info.value)
    status, data, end = parse_record(buf, offset)
    assert status is Status.BAD_DATA_CRC
    assert end == offset + len(records[1])  # the framing is still trusted
    assert len(data) == 30


@given(st.binary(min_size=1, max_size=200), st.data())
def test_any_single_bit_flip_is_detected(payload: bytes, data: st.DataObject) -> None:
    record = encode_record(payload)
    index = data.draw(st.integers(min_value=0, max_value=len(record) - 1))
    bit = data.draw(st.integers(min_value=0, max_value=7))
    bad = record[:index] + bytes([record[index] ^ (1 << bit)]) + record[index + 1 :]
    status = parse_record(bad, 0).status
    assert status in (Status.BAD_LENGTH_CRC, Status.BAD_DATA_CRC)


@pytest.mark.parametrize("length", [2**63, 2**64 - 1, 2**40])
def test_absurd_length_with_valid_crc_is_partial_without_allocating(length: int) -> None:
    header = struct.pack("<Q", length)
    buf = encode_record(b"ok") + header + struct.pack("<I", _masked(header)) + b"tail"
    assert list(iter_records(buf, path=PATH)) == [(0, b"ok")]
    status, data, end = parse_record(buf, len(encode_record(b"ok")))
    assert (status, data) == (Status.PARTIAL, b"")
    assert end == len(encode_record(b"ok"))


def test_absurd_length_with_bad_crc_is_corrupt() -> None:
    buf = struct.pack("<Q", 2**63) + b"\0\0\0\0" + b"tail"
    with pytest.raises(CorruptRecordError) as info:
        list(iter_records(buf, path=PATH))
    assert info.value.offset == 0


def test_parse_record_statuses() -> None:
    good = encode_record(b"hello")
    assert parse_record(good, 0) == (Status.OK, b"hello", len(good))
    assert parse_record(b"", 0) == (Status.PARTIAL, b"", 0)
    assert parse_record(good, len(good)) == (Status.PARTIAL, b"", len(good))
    assert parse_record(good[:-1], 0) == (Status.PARTIAL, b"", 0)
    assert parse_record(_flip(good, 2), 0) == (Status.BAD_LENGTH_CRC, b"", 0)
    status, data, end = parse_record(_flip(good, HEADER_SIZE), 0)
    assert status is Status.BAD_DATA_CRC
    assert data == _flip(b"hello", 0)
    assert end == len(good)


def test_empty_payload_and_empty_buffer() -> None:
    assert list(iter_records(b"", path=PATH)) == []
    assert list(iter_records(encode_record(b""), path=PATH)) == [(0, b"")]


def test_iteration_is_lazy_records_before_corruption_are_yielded() -> None:
    buf = encode_records([b"one", b"two"]) + b"\xff" * HEADER_SIZE + encode_record(b"three")
    got = []
    with pytest.raises(CorruptRecordError) as info:
        for item in iter_records(buf, path=PATH):
            got.append(item[1])
    assert got == [b"one", b"two"]
    assert info.value.offset == len(encode_records([b"one", b"two"]))
