"""The scalar hot path: step, wall time, tag and value of many scalar events at once.

Most records of a training log are one scalar each, in one of a few byte layouts (their
bytes come from :mod:`tbkit.record.wire`):

    Event  = 09 <wall_time f64> 10 <step varint> 2a <len> Summary
    Summary= 0a <len> Value
    Value  = 0a <len> <tag> + one of
             15 <f32>                                  (simple_value)
             42 0a 08 01 12 00 22 04 <f32>             (rank-0 DT_FLOAT, tensor_content)
             42 0a 08 01 12 00 2a 04 <f32>             (rank-0 DT_FLOAT, float_val)
             42 0e 08 02 12 00 22 08 <f64>             (rank-0 DT_DOUBLE, tensor_content)
             42 0e 08 02 12 00 32 08 <f64>             (rank-0 DT_DOUBLE, double_val)

:func:`extract` recognises these layouts for all records of a buffer with NumPy
operations over the record offsets (every byte of a recognised record is either checked
against the layout or is one of the decoded fields), and leaves every other record
(metadata, other kinds, other dtypes, long tags ...) to the full protobuf parse.

The compiled core (``tbkit.record._native``) recognises the same layouts record by record
when :func:`tbkit.record.native.core` selects it; :func:`extract_python` is the NumPy path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from tbkit.proto.types_pb2 import DT_DOUBLE, DT_FLOAT
from tbkit.reader import tag_groups
from tbkit.reader.tag_groups import byte_view
from tbkit.record import native, wire
from tbkit.record.framing import HEADER_SIZE
from tbkit.record.scan import REASON_DATA_CRC, REASON_LENGTH_CRC, RecordScan, scan_records_python

__all__ = ["FastScalars", "extract", "extract_python", "peek_tags", "scan_extract"]

Keep = Callable[[str], bool]
_REASONS = (REASON_LENGTH_CRC, REASON_DATA_CRC)  # the compiled core's problem kinds 0 and 1

SIMPLE_VALUE = 0
TENSOR_FLOAT = 1  # a rank-0 tensor (float32 or float64): its series' metadata decides the kind

# (tail length, 8-byte pattern as little-endian uint64, value dtype, kind)
_TAILS = [
    (12, wire.rank0_tensor_prefix(DT_FLOAT, wire.TENSOR_CONTENT), "<f4", TENSOR_FLOAT),
    (12, wire.rank0_tensor_prefix(DT_FLOAT, wire.TENSOR_FLOAT_VAL), "<f4", TENSOR_FLOAT),
    (16, wire.rank0_tensor_prefix(DT_DOUBLE, wire.TENSOR_CONTENT), "<f8", TENSOR_FLOAT),
    (16, wire.rank0_tensor_prefix(DT_DOUBLE, wire.TENSOR_DOUBLE_VAL), "<f8", TENSOR_FLOAT),
]


class FastScalars(NamedTuple):
    """Scalars found by :func:`extract`, for the records where ``handled`` is True.

    Attributes:
        handled: One flag per record given.
        index: Position (in the records given) of each scalar, increasing.
        tags: The distinct tags; ``tag_ids`` index into it.
        tag_ids: int32, one per scalar.
        kinds: uint8, SIMPLE_VALUE or TENSOR_FLOAT, one per scalar.
        steps: int64. wall_times: float64. values: float64.
    """

    handled: np.ndarray
    index: np.ndarray
    tags: list[str]
    tag_ids: np.ndarray
    kinds: np.ndarray
    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray


def _empty(count: int) -> FastScalars:
    z = np.zeros(0, dtype=np.int64)
    return FastScalars(
        np.zeros(count, dtype=bool), z, [], z.astype(np.int32), z.astype(np.uint8), z, z * 0.0, z * 0.0
    )


def extract(buf: bytes, starts: np.ndarray, lengths: np.ndarray, keep: Keep | None = None) -> FastScalars:
    """Decode the single-scalar events among the records at ``starts``/``lengths`` of ``buf``.

    The compiled core does it when selected (:mod:`tbkit.record.native`; a record outside
    ``buf`` is then a ``ValueError``), else :func:`extract_python`; the results are the same.
    ``keep`` (told each distinct tag once) leaves out the scalars of the tags it refuses:
    their records are still ``handled``, but not listed (nor their tags).

    Example:
        >>> from tbkit.proto import event_pb2, summary_pb2
        >>> v = summary_pb2.Summary.Value(tag="loss", simple_value=0.5)
        >>> data = event_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(value=[v]))
        >>> raw = data.SerializeToString()
        >>> extract(raw, np.array([0]), np.array([len(raw)])).values.tolist()
        [0.5]
    """
    core = native.core()
    if core is None:
        return _kept(extract_python(buf, starts, lengths), keep)
    count = len(starts)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    handled = np.zeros(count, dtype=bool)
    cols = (
        np.empty(count, np.int64),  # index
        np.empty(count, np.int32),  # tag ids
        np.empty(count, np.uint8),  # kinds
        np.empty(count, np.int64),  # steps
        np.empty(count, np.float64),  # wall times
        np.empty(count, np.float64),  # values
    )
    found, tags = core.extract(buf, starts, lengths, handled, *cols, keep)
    # Few scalars among many records: copy them out rather than keep the long arrays alive.
    part = [c[:found] if found == count else c[:found].copy() for c in cols]
    return FastScalars(handled, part[0], tags, part[1], part[2], part[3], part[4], part[5])


def scan_extract(
    buf: bytes | memoryview,
    start: int = 0,
    *,
    resyncing: bool = False,
    keep: Keep | None = None,
    known: dict[bytes, bool] | None = None,
) -> tuple[RecordScan, FastScalars]:
    """:func:`~tbkit.record.scan.scan_records` and :func:`extract` of the records it finds.

    The compiled core does both in one pass over the bytes (each record decoded while it is
    in the cache); the pure-Python path runs the two in turn. The results are the same.

    With ``keep``, a record whose tag (:func:`peek_tags`) ``keep`` refuses is framed and
    passed over: its data checksum is not checked, and it is neither listed nor decoded.
    ``known`` (``{tag bytes: kept}``) remembers ``keep``'s verdicts from call to call, so the
    compiled walk takes the GIL only for tags it has not met before.

    Example:
        >>> from tbkit.proto import event_pb2, summary_pb2
        >>> from tbkit.record.framing import encode_records
        >>> v = summary_pb2.Summary.Value(tag="loss", simple_value=0.5)
        >>> data = event_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(value=[v]))
        >>> scan, fast = scan_extract(encode_records([data.SerializeToString()]))
        >>> scan.end, fast.tags, fast.values.tolist()
        (43, ['loss'], [0.5])
    """
    core = native.core()
    if core is None:
        buf = buf if isinstance(buf, bytes) else bytes(buf)  # the CRC packages take bytes alone
        scan = scan_records_python(buf, start, resyncing=resyncing)
        if keep is not None:
            scan = _without_refused(buf, scan, keep)
        return scan, _kept(extract_python(buf, scan.starts, scan.lengths), keep)
    if known is None or keep is None:
        known = {}
    (starts, lengths, end, found, still), cols = core.scan_extract(buf, start, resyncing, keep, known)
    problems = [(offset, _REASONS[kind]) for offset, kind in found]
    scan = RecordScan(np.frombuffer(starts, np.int64), np.frombuffer(lengths, np.int64), end, problems, still)
    handled, index, tag_ids, kinds, steps, walls, values, tags = cols
    fast = FastScalars(
        np.frombuffer(handled, np.bool_),
        np.frombuffer(index, np.int64),
        tags,
        np.frombuffer(tag_ids, np.int32),
        np.frombuffer(kinds, np.uint8),
        np.frombuffer(steps, np.int64),
        np.frombuffer(walls, np.float64),
        np.frombuffer(values, np.float64),
    )
    return scan, fast


def peek_tags(
    buf: bytes, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the tag is in each record that is an event holding a summary of one value.

    Such a record starts ``09 <wall_time> 10 <step> 2a <len>`` and its summary is one value,
    ``0a <len> 0a <tag length> <tag> ...``, both running to the record's end; any value kind,
    metadata included, may follow the tag (it is not looked at).

    Returns:
        ``(ok, tag_pos, tag_len)``: a flag per record, and for those flagged, the tag's offset
        in ``buf`` and its length (1 to 127 bytes).
    """
    count = len(starts)
    if count == 0 or not len(buf):
        z = np.zeros(count, dtype=np.int64)
        return z.astype(bool), z, z
    u8 = np.frombuffer(buf, dtype=np.uint8)
    n = len(u8)

    def at(i: np.ndarray) -> np.ndarray:
        return u8[np.clip(i, 0, n - 1)]

    e = starts + lengths
    ok = (lengths >= 10) & (at(starts) == wire.EVENT_WALL_TIME) & (at(starts + 9) == wire.EVENT_STEP)
    _, k, g = wire.decode_varints(u8, starts + 10, wire.MAX_VARINT_SIZE)
    p = starts + 10 + k
    ok &= g & (p <= e) & (p < e) & (at(p) == wire.EVENT_SUMMARY)
    slen, k2, g2 = wire.decode_varints(u8, p + 1, 3)
    q = p + 1 + k2
    ok &= g2 & (q + slen.astype(np.int64) == e) & (q < e) & (at(q) == wire.SUMMARY_VALUE)
    vlen, k3, g3 = wire.decode_varints(u8, q + 1, 3)
    t = q + 1 + k3
    ok &= g3 & (t + vlen.astype(np.int64) == e) & (t + 1 < e) & (at(t) == wire.VALUE_TAG)
    tag_len = at(t + 1).astype(np.int64)
    ok &= (tag_len > 0) & (tag_len < 0x80) & (t + 2 + tag_len <= e)
    return ok, t + 2, tag_len


def _without_refused(buf: bytes, scan: RecordScan, keep: Keep) -> RecordScan:
    """``scan`` without the records whose peeked tag (:func:`peek_tags`) ``keep`` refuses: those
    are passed over unchecked, so a bad data checksum among them is no problem either."""
    bad = [offset for offset, reason in scan.problems if reason == REASON_DATA_CRC]
    heads = np.asarray(bad, dtype=np.int64)
    bad_lengths = np.array([int.from_bytes(buf[h : h + 8], "little") for h in bad], dtype=np.int64)
    starts = np.concatenate([scan.starts, heads + HEADER_SIZE])
    lengths = np.concatenate([scan.lengths, bad_lengths])
    ok, tag_pos, tag_len = peek_tags(buf, starts, lengths)
    refused = np.zeros(len(starts), dtype=bool)
    sel = np.flatnonzero(ok)
    if len(sel):  # (padded: a tag may end 4 bytes before the buffer does, its last word read whole)
        tags, ids, valid = tag_groups.tag_ids(bytes(buf) + bytes(8), tag_pos[sel], tag_len[sel])
        verdict = np.array([not keep(tag) for tag in tags] + [False], dtype=bool)
        refused[sel] = verdict[np.where(valid, ids, len(tags))]
    if not refused.any():
        return scan
    good = len(scan.starts)
    dropped = {int(h) for h in heads[refused[good:]].tolist()}
    problems = [(o, r) for o, r in scan.problems if not (r == REASON_DATA_CRC and o in dropped)]
    keep_good = ~refused[:good]
    return RecordScan(scan.starts[keep_good], scan.lengths[keep_good], scan.end, problems, scan.resyncing)


def _kept(fast: FastScalars, keep: Keep | None) -> FastScalars:
    """``fast`` without the scalars of the tags ``keep`` refuses (their records stay handled)."""
    if keep is None or not fast.tags:
        return fast
    wanted = [bool(keep(tag)) for tag in fast.tags]
    if all(wanted):
        return fast
    renumber = np.cumsum(wanted, dtype=np.int32) - 1
    renumber[~np.asarray(wanted)] = -1
    ids = renumber[fast.tag_ids]
    sel = ids >= 0
    tags = [tag for tag, w in zip(fast.tags, wanted, strict=True) if w]
    return FastScalars(
        fast.handled,
        fast.index[sel],
        tags,
        ids[sel],
        fast.kinds[sel],
        fast.steps[sel],
        fast.wall_times[sel],
        fast.values[sel],
    )


def extract_python(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> FastScalars:
    """:func:`extract` in NumPy: the path used without the compiled core.

    Example:
        >>> from tbkit.proto import event_pb2, summary_pb2
        >>> v = summary_pb2.Summary.Value(tag="loss", simple_value=0.5)
        >>> data = event_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(value=[v]))
        >>> raw = data.SerializeToString()
        >>> extract_python(raw, np.array([0]), np.array([len(raw)])).values.tolist()
        [0.5]
    """
    count = len(starts)
    if count == 0 or len(buf) < 16:
        return _empty(count)
    u8 = np.frombuffer(buf, dtype=np.uint8)
    n = len(u8)
    ends = starts + lengths
    ok = (
        (lengths >= 23)  # the smallest layout: a 1-byte tag and a simple_value
        & (u8[np.minimum(starts, n - 1)] == wire.EVENT_WALL_TIME)
        & (u8[np.minimum(starts + wire.FIXED_STEP_KEY_AT, n - 1)] == wire.EVENT_STEP)
    )
    idx = np.flatnonzero(ok)
    if not len(idx):
        return _empty(count)
    s, e = starts[idx], ends[idx]
    steps, k, good = wire.decode_varints(u8, s + wire.FIXED_STEP_AT, wire.MAX_VARINT_SIZE)
    p = s + wire.FIXED_STEP_AT + k
    good &= u8[np.minimum(p, n - 1)] == wire.EVENT_SUMMARY
    slen, k2, g2 = wire.decode_varints(u8, p + 1, 3)
    q = p + 1 + k2
    good &= g2 & (q + slen.astype(np.int64) == e) & (u8[np.minimum(q, n - 1)] == wire.SUMMARY_VALUE)
    vlen, k3, g3 = wire.decode_varints(u8, q + 1, 3)
    t = q + 1 + k3
    good &= g3 & (t + vlen.astype(np.int64) == e) & (u8[np.minimum(t, n - 1)] == wire.VALUE_TAG)
    tag_len = u8[np.minimum(t + 1, n - 1)].astype(np.int64)
    good &= tag_len < 0x80
    r = t + 2 + tag_len
    rest = e - r
    kinds = np.full(len(idx), 255, dtype=np.uint8)
    value_at = np.zeros(len(idx), dtype=np.int64)
    is_f64 = np.zeros(len(idx), dtype=bool)
    simple = good & (rest == 5) & (u8[np.minimum(r, n - 1)] == wire.VALUE_SIMPLE_VALUE)
    kinds[simple] = SIMPLE_VALUE
    value_at[simple] = r[simple] + 1
    head8 = byte_view(buf, "<u8", 8)
    tail_word = head8[np.clip(r, 0, len(head8) - 1)]
    for size, pattern, dtype, kind in _TAILS:
        hit = good & (rest == size) & (tail_word == np.frombuffer(pattern, "<u8")[0])
        kinds[hit] = kind
        value_at[hit] = r[hit] + 8
        if dtype == "<f8":
            is_f64 |= hit
    good &= (kinds != 255) & (tag_len > 0)
    sel = np.flatnonzero(good)
    tags, tag_ids, tag_ok = tag_groups.tag_ids(buf, t[sel] + 2, tag_len[sel])
    sel = sel[tag_ok]
    tag_ids = tag_ids[tag_ok]
    values = byte_view(buf, "<f4", 4)[np.minimum(value_at[sel], n - 4)].astype(np.float64)
    wide = is_f64[sel]
    if wide.any():
        values[wide] = byte_view(buf, "<f8", 8)[value_at[sel][wide]]
    handled = np.zeros(count, dtype=bool)
    index = idx[sel]
    handled[index] = True
    return FastScalars(
        handled,
        index,
        tags,
        tag_ids,
        kinds[sel],
        steps[sel].view(np.int64),
        byte_view(buf, "<f8", 8)[s[sel] + wire.FIXED_WALL_TIME_AT].astype(np.float64),
        values,
    )
