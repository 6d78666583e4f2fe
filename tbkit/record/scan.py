"""Bulk, tolerant scanning of a buffer of TFRecords, vectorised with NumPy.

:func:`scan_records` finds every record of a buffer and verifies both checksums of all
of them at once. It is the reader's fast path and belongs to the record layer, the only
place that frames records and computes checksums:

* Record boundaries: every offset whose next 12 bytes form a valid header (a length
  below 16 MiB and its masked CRC) is found with array operations; when these offsets
  chain exactly (each record ends where the next begins) the framing is proven and no
  per-record Python loop runs. Otherwise (corruption, larger records) a sequential walk
  takes over, which skips a record with a bad data checksum and, after a bad length
  checksum, resynchronises on the next valid record header.
* Data checksums: CRC-32C is affine over GF(2), so for records of equal length
  ``crc(d) = crc(r) ^ Σ_j Z[L-1-j][d_j ^ r_j]`` for any reference record ``r``, where
  ``Z[m][b]`` is the CRC contribution of byte ``b`` followed by ``m`` zero bytes. Only
  the byte positions that differ between records of one length need table look-ups, so
  the many small records of a scalar log are verified with a few vectorised operations.

Nothing is ever allocated from a length read in the file: lengths are only compared
with the size of the buffer at hand.

:func:`scan_records` runs the compiled core (``tbkit.record._native``, a sequential walk
with hardware CRC-32C) when :func:`tbkit.record.native.core` selects it, and
:func:`scan_records_python` (the vectorised code of this module) otherwise; both give the
same scan, problems and offsets included.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import numpy as np

from tbkit.record import native
from tbkit.record.crc import crc32c, mask
from tbkit.record.framing import FOOTER_SIZE, HEADER_SIZE, OVERHEAD

__all__ = ["RecordScan", "scan_records", "scan_records_python", "verify_data_checksums"]

_MASK_DELTA = np.uint32(mask(0))  # the mask of 0 is the mask's additive constant
_MAX_FAST_LENGTH_BYTES = 3  # candidate headers have a length below 2**24: bytes 3..7 are zero
_MATRIX_MAX_LENGTH = 512  # longer records are checked one by one (few, and big)
_MATRIX_BYTES = 1 << 20  # bytes handled at a time by the vectorised checks (bounds their temporaries)
_unpack_qi = struct.Struct("<QI").unpack_from

REASON_LENGTH_CRC = "bad length checksum"
REASON_DATA_CRC = "bad data checksum"
_NATIVE_REASONS = (REASON_LENGTH_CRC, REASON_DATA_CRC)  # the compiled core's problem kinds 0 and 1


class RecordScan(NamedTuple):
    """What :func:`scan_records` found in a buffer.

    Attributes:
        starts: Offset in the buffer of each good record's data (int64, in order).
        lengths: Each good record's data length (int64).
        end: Offset of the first byte not consumed: the start of a partial last record
            (which may still be being written), or the buffer's length.
        problems: ``(offset, reason)`` of each corrupt record skipped, in order.
        resyncing: True when the buffer ended while looking for a valid header after a
            corrupt one; pass it back with ``start=end`` once more bytes are there.
    """

    starts: np.ndarray
    lengths: np.ndarray
    end: int
    problems: list[tuple[int, str]]
    resyncing: bool


# -- vectorised CRC-32C helpers --------------------------------------------------------


def _make_tables(count: int) -> np.ndarray:
    zero = crc32c(b"\x00")
    first = np.array([crc32c(bytes((b,))) ^ zero for b in range(256)], dtype=np.uint32)
    tables = np.empty((count, 256), dtype=np.uint32)
    tables[0] = first
    for m in range(1, count):
        prev = tables[m - 1]
        tables[m] = first[prev & 0xFF] ^ (prev >> np.uint32(8))
    return tables


_Z = _make_tables(_MATRIX_MAX_LENGTH)


def _unmask(stored: np.ndarray) -> np.ndarray:
    c = stored.astype(np.uint32) - _MASK_DELTA
    return (c >> np.uint32(17)) | (c << np.uint32(15))


def _view(buf: bytes, dtype: str, size: int) -> np.ndarray:
    """A read-only array whose element ``i`` is the ``dtype`` value at byte ``i`` of ``buf``."""
    count = max(len(buf) - size + 1, 0)
    return np.ndarray((count,), dtype=dtype, buffer=buf, offset=0, strides=(1,))


def _groups_by_length(lengths: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``(length, indices)`` for each distinct length (a radix sort for the common small ones)."""
    small = lengths < _MATRIX_MAX_LENGTH
    groups = []
    if small.all():
        order = np.argsort(lengths.astype(np.uint16), kind="stable")
        counts = np.bincount(lengths, minlength=_MATRIX_MAX_LENGTH)
    else:
        idx_small = np.flatnonzero(small)
        order = idx_small[np.argsort(lengths[idx_small].astype(np.uint16), kind="stable")]
        counts = np.bincount(lengths[idx_small], minlength=_MATRIX_MAX_LENGTH)
        groups = [(int(lengths[i]), np.array([i])) for i in np.flatnonzero(~small).tolist()]
    bounds = np.cumsum(counts)
    for length in np.flatnonzero(counts).tolist():
        hi = int(bounds[length])
        groups.append((length, order[hi - int(counts[length]) : hi]))
    return groups


def verify_data_checksums(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Check the data checksum of many records of ``buf`` at once.

    Args:
        buf: The bytes holding the records.
        starts: Offset of each record's data (int64).
        lengths: Length of each record's data; its masked CRC follows the data.

    Returns:
        A boolean array, True where the stored checksum matches the data.
    """
    ok = np.zeros(len(starts), dtype=bool)
    if not len(starts):
        return ok
    u8 = np.frombuffer(buf, dtype=np.uint8)
    stored = _unmask(_view(buf, "<u4", 4)[starts + lengths])
    for length, sel in _groups_by_length(lengths):
        if length >= _MATRIX_MAX_LENGTH or len(sel) < 8:
            for i in sel.tolist():
                a = int(starts[i])
                ok[i] = crc32c(buf[a : a + length]) == int(stored[i])
            continue
        windows = np.lib.stride_tricks.as_strided(u8, shape=(len(u8) - length + 1, length), strides=(1, 1))
        rows = max(1, _MATRIX_BYTES // max(length, 1))
        for lo in range(0, len(sel), rows):
            part = sel[lo : lo + rows]
            matrix = windows[starts[part]]
            ref = matrix[0].copy()
            diff = matrix ^ ref
            acc = np.full(len(part), crc32c(ref.tobytes()), dtype=np.uint32)
            for j in np.flatnonzero(diff.any(axis=0)).tolist():
                acc ^= _Z[length - 1 - j][diff[:, j]]
            ok[part] = acc == stored[part]
    return ok


# -- finding record boundaries ---------------------------------------------------------


def _candidate_heads(buf: bytes, lo: int) -> np.ndarray:
    """Offsets >= lo holding a complete header with a small length and a valid length CRC."""
    n = len(buf)
    count = n - lo - HEADER_SIZE + 1
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    u8 = np.frombuffer(buf, dtype=np.uint8)
    found = []
    for first in range(lo, lo + count, _MATRIX_BYTES):  # slices keep the boolean masks small
        size = min(_MATRIX_BYTES, lo + count - first)
        zero = u8[first : first + size + 7] == 0
        small = zero[3 : 3 + size].copy()
        for j in range(4, 8):
            small &= zero[j : j + size]
        found.append(np.flatnonzero(small) + first)
    cand = np.concatenate(found) if len(found) > 1 else found[0]
    if not len(cand):
        return cand.astype(np.int64)
    acc = np.full(len(cand), crc32c(bytes(8)), dtype=np.uint32)
    for j in range(_MAX_FAST_LENGTH_BYTES):
        acc ^= _Z[7 - j][u8[cand + j]]
    good = _unmask(_view(buf, "<u4", 4)[cand + 8]) == acc
    return cand[good].astype(np.int64)


def _lengths_at(buf: bytes, heads: np.ndarray) -> np.ndarray:
    return _view(buf, "<u8", 8)[heads].astype(np.int64)


def _fast_chain(buf: bytes, start: int) -> tuple[np.ndarray, int] | None:
    """Record heads from ``start`` when the candidate headers chain exactly, else None."""
    n = len(buf)
    heads = _candidate_heads(buf, start)
    if not len(heads):
        return (heads, start) if n - start < HEADER_SIZE else None
    if heads[0] != start:
        return None
    nxt = heads + _lengths_at(buf, heads) + OVERHEAD
    breaks = np.flatnonzero(nxt[:-1] != heads[1:])
    if len(breaks):
        i = int(breaks[0])
        if nxt[i] > n:  # a partial record; later candidates lie inside its missing bytes
            return heads[:i], int(heads[i])
        return None
    if nxt[-1] > n:
        return heads[:-1], int(heads[-1])
    if n - nxt[-1] < HEADER_SIZE:
        return heads, int(nxt[-1])
    return None  # bytes follow that are not a valid header: let the careful walk decide


def _resync(buf: bytes, lo: int) -> int | None:
    """The first offset >= lo where a plausible record begins, or None if none is there yet."""
    n = len(buf)
    for head in _candidate_heads(buf, lo).tolist():
        length = _unpack_qi(buf, head)[0]
        end = head + HEADER_SIZE + length
        if end + FOOTER_SIZE > n:
            return head  # plausible, not complete yet: wait for the rest
        if mask(crc32c(buf[head + HEADER_SIZE : end])) == struct.unpack_from("<I", buf, end)[0]:
            return head
    return None


def _walk(buf: bytes, start: int, resyncing: bool) -> tuple[list[int], int, list[tuple[int, str]], bool]:
    """Sequential header walk, tolerant: returns heads, end, problems, still-resyncing."""
    n = len(buf)
    heads: list[int] = []
    problems: list[tuple[int, str]] = []
    off = start
    while True:
        if resyncing:
            found = _resync(buf, off)
            if found is None:
                # Any header yet to come starts in the last 11 bytes: keep them.
                return heads, max(off, n - HEADER_SIZE + 1), problems, True
            off, resyncing = found, False
        if n - off < HEADER_SIZE:
            return heads, off, problems, False
        length, length_crc = _unpack_qi(buf, off)
        if mask(crc32c(buf[off : off + 8])) != length_crc:
            problems.append((off, REASON_LENGTH_CRC))
            off, resyncing = off + 1, True
            continue
        end = off + OVERHEAD + length
        if end > n:
            return heads, off, problems, False
        heads.append(off)
        off = end


def scan_records(buf: bytes | memoryview, start: int = 0, *, resyncing: bool = False) -> RecordScan:
    """Find and verify every complete record of ``buf`` from ``start``, tolerantly.

    A record with a bad data checksum is skipped (its framing is still trusted); after a
    bad length checksum the scan resumes at the next offset holding a valid header whose
    record checks out. Each skipped record is listed in ``problems``. The compiled core
    does the work when it is selected (:mod:`tbkit.record.native`), else
    :func:`scan_records_python`; the results are the same.

    Example:
        >>> from tbkit.record.framing import encode_records
        >>> scan = scan_records(encode_records([b"a", b"bc"]))
        >>> scan.lengths.tolist(), scan.end
        ([1, 2], 35)
    """
    core = native.core()
    if core is None:
        return scan_records_python(buf if isinstance(buf, bytes) else bytes(buf), start, resyncing=resyncing)
    starts, lengths, end, found, still = core.scan(buf, start, resyncing)
    problems = [(offset, _NATIVE_REASONS[kind]) for offset, kind in found]
    return RecordScan(np.frombuffer(starts, np.int64), np.frombuffer(lengths, np.int64), end, problems, still)


def scan_records_python(buf: bytes, start: int = 0, *, resyncing: bool = False) -> RecordScan:
    """:func:`scan_records` in Python and NumPy: the path used without the compiled core.

    Example:
        >>> from tbkit.record.framing import encode_records
        >>> scan = scan_records_python(encode_records([b"a", b"bc"]))
        >>> scan.lengths.tolist(), scan.end
        ([1, 2], 35)
    """
    problems: list[tuple[int, str]] = []
    fast = None if resyncing else _fast_chain(buf, start)
    if fast is not None:
        heads, end = fast
    else:
        head_list, end, problems, resyncing = _walk(buf, start, resyncing)
        heads = np.asarray(head_list, dtype=np.int64)
    lengths = _lengths_at(buf, heads) if len(heads) else np.zeros(0, dtype=np.int64)
    starts = heads + HEADER_SIZE
    ok = verify_data_checksums(buf, starts, lengths)
    if not ok.all():
        bad = [(int(h), REASON_DATA_CRC) for h in heads[~ok].tolist()]
        problems = sorted(problems + bad)
        starts, lengths = starts[ok], lengths[ok]
    return RecordScan(starts, lengths, int(end), problems, resyncing)
