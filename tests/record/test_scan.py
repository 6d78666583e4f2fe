"""The bulk, tolerant record scanner agrees with the one-record parser."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.record.framing import HEADER_SIZE, encode_records, iter_records
from tbkit.record.scan import scan_records, verify_data_checksums

payloads = st.lists(st.binary(min_size=0, max_size=700), min_size=0, max_size=40)


@settings(max_examples=60, deadline=None)
@given(payloads)
def test_scan_finds_what_iter_records_finds(items):
    buf = encode_records(items)
    scan = scan_records(buf)
    got = [buf[a : a + n] for a, n in zip(scan.starts.tolist(), scan.lengths.tolist(), strict=True)]
    assert got == [data for _, data in iter_records(buf, path="x")] == items
    assert scan.end == len(buf) and scan.problems == []


@settings(max_examples=60, deadline=None)
@given(payloads.filter(bool), st.data())
def test_any_flipped_byte_loses_at_most_the_records_it_touches(items, data):
    buf = bytearray(encode_records(items))
    pos = data.draw(st.integers(0, len(buf) - 1))
    buf[pos] ^= data.draw(st.integers(1, 255))
    scan = scan_records(bytes(buf))
    got = [bytes(buf[a : a + n]) for a, n in zip(scan.starts.tolist(), scan.lengths.tolist(), strict=True)]
    # Every record returned is intact, and in order.
    it = iter(items)
    assert all(any(g == x for x in it) for g in got)
    assert len(got) >= len(items) - 1
    assert len(got) == len(items) or scan.problems


def test_bulk_checksums_match_one_by_one():
    rng = np.random.default_rng(1)
    items = [bytes(rng.integers(0, 256, size=int(n), dtype=np.uint8)) for n in rng.integers(0, 64, size=300)]
    buf = bytearray(encode_records(items))
    scan = scan_records(bytes(buf))
    bad = [5, 77, 123]
    for i in bad:
        buf[int(scan.starts[i]) + int(scan.lengths[i])] ^= 1  # the stored data CRC
    ok = verify_data_checksums(bytes(buf), scan.starts, scan.lengths)
    assert np.flatnonzero(~ok).tolist() == bad


def test_partial_tail_and_resync_state():
    buf = encode_records([b"abc", b"defg"])
    scan = scan_records(buf[:-3])
    assert scan.lengths.tolist() == [3] and scan.end == 3 + 16
    garbage = b"\x99" * 30
    scan = scan_records(encode_records([b"a"]) + garbage)
    assert scan.problems == [(17, "bad length checksum")] and scan.resyncing
    later = scan_records(garbage + encode_records([b"zz"]), resyncing=True)
    assert later.lengths.tolist() == [2] and later.starts.tolist() == [30 + HEADER_SIZE]
