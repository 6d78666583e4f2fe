"""Incremental, tolerant loading of event files into a :class:`~tbkit.reader.events.RunData`.

Each file's read offset is kept, so a reload reads only the bytes written since. The
bytes are framed by the record layer (:func:`tbkit.record.scan.scan_records`, window by
window, so temporary arrays stay small), single-scalar events are decoded in bulk by
:mod:`tbkit.reader.fastscalar`, and every other record is parsed as an ``Event``. Order
is kept: the scalars between two slow records are applied before the later one.

Corrupt records are skipped, each recorded as a problem with one warning; an incomplete
last record is left for the next reload (and shown as a pending problem meanwhile).
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager

import numpy as np
from google.protobuf.message import DecodeError

from tbkit._memory import release_when_due
from tbkit.errors import StorageError
from tbkit.proto import event_pb2
from tbkit.reader import fastscalar
from tbkit.reader.events import FileState, Problem, RunData
from tbkit.reader.pacing import pause
from tbkit.reader.scalar_groups import apply_scalar_groups
from tbkit.record import storage
from tbkit.record.framing import HEADER_SIZE, Status, parse_record
from tbkit.record.scan import scan_records

__all__ = ["load_file", "load_passed_over"]

WINDOW = 4 << 20  # bytes framed at a time
CHUNK = 4 << 20  # bytes read from the file at a time
TAG_GROUP = 512  # tags of a window applied in one go, then the loader pauses for requests


def load_file(
    run: RunData,
    path: str,
    limit: int | None = None,
    lock: AbstractContextManager[object] | None = None,
    chunk: int = CHUNK,
    size: int | None = None,
) -> None:
    """Read the new bytes of the event file ``path`` of ``run`` and apply them.

    Args:
        run: The run the file belongs to.
        path: The event file.
        limit: Read at most this many new bytes now (the rest on a later call): a quick
            first look that finds a run's tags without reading all of it.
        lock: Held while the run's data change (one window of records at a time), not
            while bytes are read and framed, so readers of the run wait little.
        chunk: Bytes read from the file at a time (more when one record is longer), so
            memory stays bounded however large the file.
        size: The file's size if known (an object store's listing gives it): then it is not
            asked for. A file whose size did not change since it was last read to its end
            is not read at all (on an object store: no request); one that grew is read from
            where the last read stopped (one ranged GET of the new bytes).
    """
    lock = lock if lock is not None else contextlib.nullcontext()
    with lock:
        state = run.files.get(path)
        if state is None:
            state = run.files[path] = FileState(path)
    if size is None:
        try:
            size = storage.size(path)
        except StorageError as exc:
            with lock:
                run.problem(path, None, str(exc))
            return
    if size == state.seen and state.offset <= size:
        return  # nothing new since the last read: not even a pending tail is read again
    end = size if limit is None else min(size, state.offset + limit)
    first = state.offset
    want = chunk
    tail = 0
    buffer = bytearray(0)  # reused by the reads of this file (grown for a record longer than a chunk)
    while state.offset < end:
        count = min(want, end - state.offset)
        if len(buffer) < count:
            buffer = bytearray(count)
        try:
            data = memoryview(buffer)[: storage.read_into(path, state.offset, memoryview(buffer)[:count])]
        except StorageError as exc:
            with lock:
                run.problem(path, None, str(exc))
            return
        if not data:
            break
        consumed = _load_buffer(run, state, data, lock)
        reached = state.offset + len(data) >= end
        tail = len(data) - consumed
        with lock:
            state.offset += consumed
        del data
        if reached:
            break
        want = chunk if consumed else want * 2  # no whole record in the chunk: read more
    cut_short = state.offset + tail < size  # the rest is unread, not incomplete
    with lock:
        state.seen = -1 if cut_short else size
        state.tail = None
        if tail and not state.resyncing and not cut_short:  # while resyncing, kept bytes are no record yet
            reason = f"incomplete last record ({tail} bytes; the file may still be being written)"
            state.tail = Problem(run.name, path, state.offset, reason)
    del buffer  # before the trim, so that its pages can go back
    release_when_due(state.offset - first)  # not after every small file: a trim walks the heap


def _load_buffer(
    run: RunData, state: FileState, data: memoryview, lock: AbstractContextManager[object]
) -> int:
    """Apply every complete record of ``data``; returns the bytes consumed."""
    pos = 0
    size = WINDOW
    keep = run.wants if run.tag_filter is not None else None  # other tags' scalars: framed, not listed
    while pos < len(data):
        window = data[pos : pos + size]
        scan, fast = fastscalar.scan_extract(window, resyncing=state.resyncing, keep=keep, known=run.verdicts)
        with lock:  # framing and bulk decoding (which release the GIL) ran without it
            for offset, reason in scan.problems:
                run.problem(state.path, state.offset + pos + offset, f"corrupt record: {reason}")
            state.resyncing = scan.resyncing
            if len(scan.starts):
                framed = (scan.starts, scan.lengths)
                _apply_records(run, state, window, framed, state.offset + pos, fast, lock)
        if scan.end == 0 and pos + len(window) < len(data):
            size *= 2  # a record longer than the window: look further
            continue
        pos += scan.end
        size = WINDOW
        if pos + (len(window) - scan.end) >= len(data):
            break
    return pos


def _apply_records(
    run: RunData,
    state: FileState,
    buf: memoryview,
    framed: tuple[np.ndarray, np.ndarray],
    base: int,
    fast: fastscalar.FastScalars,
    lock: AbstractContextManager[object],
) -> None:
    """Apply a framed window's records (``framed``: their data starts and lengths), in order,
    with ``lock`` held (and let go for requests between groups of tags, :func:`_apply_fast`)."""
    starts, lengths = framed
    deferring = run.scalars_only  # then each record's file offset may be remembered
    slow = np.flatnonzero(~fast.handled).tolist()
    if not slow:
        _apply_fast(run, state, fast, starts, base, 0, len(fast.index), deferring, lock)
        return
    bounds = [*np.searchsorted(fast.index, slow).tolist(), len(fast.index)]
    lo = 0
    for i, hi in zip([*slow, None], bounds, strict=True):
        if hi > lo:
            _apply_fast(run, state, fast, starts, base, lo, hi, deferring, lock)
        lo = hi
        if i is not None:
            a = int(starts[i])
            try:
                event = event_pb2.Event.FromString(buf[a : a + int(lengths[i])])
            except DecodeError as exc:
                run.problem(state.path, base + a - 12, f"undecodable event ({exc})")
                continue
            run.apply_event(event, state, base + a - HEADER_SIZE)


def _apply_fast(
    run: RunData,
    state: FileState,
    fast: fastscalar.FastScalars,
    starts: np.ndarray,
    base: int,
    lo: int,
    hi: int,
    deferring: bool,
    lock: AbstractContextManager[object],
) -> None:
    """Apply the fast scalars ``lo:hi``, tag by tag (the tag filter already left the others out).

    The scalars are put in tag order once (a stable radix sort of the tag ids) and each tag
    takes its slice of that order (:func:`~tbkit.reader.scalar_groups.apply_scalar_groups`),
    instead of a comparison and a search per tag. ``deferring``: the records' file offsets
    are given (from ``starts``, the window's record starts, and ``base``, its file offset).
    The tags go in groups of :data:`TAG_GROUP`, and between two groups the loader pauses
    (``lock`` let go while requests are answered, :func:`tbkit.reader.pacing.pause`): one
    tag's rows are applied whole, so a reader never sees part of a tag's window.
    """
    ids = fast.tag_ids[lo:hi]
    columns = (fast.kinds, fast.steps, fast.wall_times, fast.values)
    counts = np.bincount(ids)
    if len(counts) == 1 or np.count_nonzero(counts) == 1:  # one tag: its columns as they are
        where = starts[fast.index[lo:hi]] + (base - HEADER_SIZE) if deferring else None
        run.apply_scalars(fast.tags[int(ids[0])], *(c[lo:hi] for c in columns), state, where)
        return
    order = np.argsort(_narrow(ids, len(counts) - 1), kind="stable")
    present = np.flatnonzero(counts)
    bounds = [0, *np.cumsum(counts[present]).tolist()]
    where = starts[fast.index[lo:hi]] + (base - HEADER_SIZE) if deferring else None
    tags = [fast.tags[t] for t in present.tolist()]
    window = [c[lo:hi] for c in columns]  # views: each tag's rows are copied out by the order
    for g in range(0, len(tags), TAG_GROUP):
        if g:
            pause(lock)
        a, b = bounds[g], bounds[min(g + TAG_GROUP, len(tags))]
        group = [x - a for x in bounds[g : g + TAG_GROUP + 1]]
        apply_scalar_groups(run, tags[g : g + TAG_GROUP], *window, group, state, where, order[a:b])


def _narrow(ids: np.ndarray, largest: int) -> np.ndarray:
    """``ids`` in the smallest unsigned type holding ``largest``: NumPy's stable sort of 8- and
    16-bit integers is a radix sort (3-7x faster than on int32 here)."""
    if largest < 1 << 8:
        return ids.astype(np.uint8)
    return ids.astype(np.uint16) if largest < 1 << 16 else ids


def load_passed_over(run: RunData, lock: AbstractContextManager[object] | None = None) -> None:
    """Apply the records a ``scalars_only`` read of ``run`` passed over, in the order read.

    Each record is read again at its offset (its checksums checked again), and the restarts
    that came after it are replayed on the passed-over tags' series, so the run ends as a
    full read leaves it; from then on the run reads everything.
    """
    lock = lock if lock is not None else contextlib.nullcontext()
    with lock:
        deferred, restarts = run.deferred, run.restarts
        run.deferred, run.restarts, run.scalars_only = [], [], False
    windows: dict[str, tuple[int, bytes | memoryview, np.ndarray, np.ndarray]] = {}
    replayed = 0
    for path, offset, seen in deferred:
        event = _reread(run, path, offset, windows, lock)
        with lock:
            for step in restarts[replayed:seen]:
                run.purge_passed_over(step)
            replayed = max(replayed, seen)
            if event is not None:
                run.apply_passed_over(event, run.files[path])
    with lock:
        for step in restarts[replayed:]:
            run.purge_passed_over(step)
        run.passed_over.clear()
    release_when_due(sum(len(window[1]) for window in windows.values()))


def _reread(
    run: RunData,
    path: str,
    offset: int,
    windows: dict[str, tuple[int, bytes | memoryview, np.ndarray, np.ndarray]],
    lock: AbstractContextManager[object],
) -> event_pb2.Event | None:
    """The event of the record at ``offset`` of ``path``, read again (by windows of CHUNK bytes,
    each framed and checked once by the record layer)."""
    start, data, starts, lengths = windows.get(path, (0, b"", _NO_RECORDS, _NO_RECORDS))
    found = _framed(starts, lengths, offset - start)
    if found is None:
        try:  # each path's windows are read into one buffer (the window before is done with)
            if isinstance(data, memoryview) and len(data.obj) == CHUNK:  # type: ignore[arg-type]
                buffer = data.obj
            else:  # no bigger than what is left of the file: many small files may be re-read at once
                buffer = bytearray(max(min(CHUNK, storage.size(path) - offset), HEADER_SIZE))
            start, data = offset, memoryview(buffer)[: storage.read_into(path, offset, memoryview(buffer))]
            if len(data) >= HEADER_SIZE and parse_record(data, 0).status is Status.PARTIAL:
                length = int.from_bytes(data[:8], "little")  # a record longer than CHUNK
                if length < storage.size(path):
                    data = storage.read_bytes(path, offset, HEADER_SIZE + length + 4)
        except StorageError as exc:
            with lock:
                run.problem(path, offset, f"record passed over cannot be read again ({exc})")
            return None
        scan = scan_records(data)
        windows[path] = (start, data, scan.starts, scan.lengths)
        found = _framed(scan.starts, scan.lengths, 0)
    if found is None:  # not a whole, intact record there any more: say how
        status = parse_record(data, offset - start).status
        reason = "incomplete" if status is Status.PARTIAL else status.value
        with lock:
            run.problem(path, offset, f"corrupt record (changed since it was first read): {reason}")
        return None
    try:
        return event_pb2.Event.FromString(data[found[0] : found[0] + found[1]])
    except DecodeError as exc:
        with lock:
            run.problem(path, offset, f"undecodable event ({exc})")
        return None


_NO_RECORDS = np.zeros(0, dtype=np.int64)


def _framed(starts: np.ndarray, lengths: np.ndarray, at: int) -> tuple[int, int] | None:
    """``(data start, length)`` of the intact record whose header is at ``at`` of a framed window."""
    i = int(np.searchsorted(starts, at + HEADER_SIZE))
    if at < 0 or i >= len(starts) or int(starts[i]) != at + HEADER_SIZE:
        return None
    return int(starts[i]), int(lengths[i])
