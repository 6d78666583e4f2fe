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

import bisect
import contextlib
import threading
from contextlib import AbstractContextManager

import numpy as np
from google.protobuf.message import DecodeError

from tbkit._memory import release_when_due
from tbkit.errors import StorageError
from tbkit.proto import event_pb2
from tbkit.reader import fastscalar, tag_groups
from tbkit.reader.events import FileState, Problem, RunData
from tbkit.reader.pacing import pause
from tbkit.reader.passed_over import load_passed_over
from tbkit.reader.scalar_groups import apply_scalar_groups
from tbkit.record import storage
from tbkit.record.framing import HEADER_SIZE

__all__ = ["drop_read_buffer", "load_file", "load_passed_over"]

WINDOW = 4 << 20  # bytes framed at a time
CHUNK = 4 << 20  # bytes read from the file at a time
TAG_GROUP = 512  # tags of a window applied in one go, then the loader pauses for requests


_held = threading.local()  # each loading thread's read buffer (see load_file, drop_read_buffer)


def drop_read_buffer() -> None:
    """Let go of this thread's read buffer (:func:`load_file` keeps it from file to file)."""
    _held.__dict__.pop("buffer", None)


def load_file(
    run: RunData,
    path: str,
    limit: int | None = None,
    lock: AbstractContextManager[object] | None = None,
    chunk: int = CHUNK,
    size: int | None = None,
) -> None:
    """Read the new bytes of the event file ``path`` of ``run`` and apply them.

    The bytes are read into the thread's read buffer, which the thread's next file reuses
    (up to a chunk's size; :func:`drop_read_buffer` lets it go): fresh pages cost more to
    write than the read into them (a chunk a file was 80 MB of new pages for the 20 files
    of a 560 MB logdir).

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
    buffer = _held.buffer if hasattr(_held, "buffer") else bytearray(0)  # this thread's, reused
    while state.offset < end:
        count = min(want, end - state.offset)
        if len(buffer) < count:  # grown (to a chunk, or for a record longer than one)
            buffer = bytearray(count if count > chunk else min(chunk, 1 << (count - 1).bit_length()))
            if len(buffer) <= CHUNK:
                _held.buffer = buffer
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
    del buffer  # before the trim: one longer than a chunk can go back
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
    later: list[int] = []  # slow records passed over again, deferred without splitting the scalars
    ready = deferring and run.passed_over and run.start_time is not None
    if ready and not any(tag in run.passed_over for tag in fast.tags):  # else fast scalars are deferred too
        slow, later = _passed_over_again(run, buf, starts, lengths, slow)
    bounds = [*np.searchsorted(fast.index, slow).tolist(), len(fast.index)]
    lo = k = 0
    for i, hi in zip([*slow, None], bounds, strict=True):
        if hi > lo:
            _apply_fast(run, state, fast, starts, base, lo, hi, deferring, lock)
        lo = hi
        j = len(later) if i is None else bisect.bisect_left(later, i, k)
        if j > k:  # in the order read, before the next record that changes anything
            run.generation += 1
            run.deferred.extend(
                (state.path, int(starts[d]) + base - HEADER_SIZE, len(run.restarts)) for d in later[k:j]
            )
            k = j
        if i is not None:
            a = int(starts[i])
            try:
                event = event_pb2.Event.FromString(buf[a : a + int(lengths[i])])
            except DecodeError as exc:
                run.problem(state.path, base + a - 12, f"undecodable event ({exc})")
                continue
            run.apply_event(event, state, base + a - HEADER_SIZE)


def _passed_over_again(
    run: RunData, buf: memoryview, starts: np.ndarray, lengths: np.ndarray, slow: list[int]
) -> tuple[list[int], list[int]]:
    """``slow`` split into the records to apply and those :meth:`RunData.apply_event` would only
    defer: events of one summary value whose tag was passed over already (a ``scalars_only``
    read of a mixed logdir: the histograms and images after each tag's first). Deferring those
    changes no series, so the fast scalars around them are applied in one go, not split at each
    of them. Their tags are found in place and grouped in bulk (:func:`fastscalar.peek_tags`,
    :func:`tag_groups.tag_ids`): nothing is parsed. Any other record (several values, a tag
    not passed over, one not valid UTF-8, another layout) is applied as before."""
    picked = np.asarray(slow, dtype=np.intp)
    ok, tag_pos, tag_len = fastscalar.peek_tags(buf, starts[picked], lengths[picked])
    ok &= tag_pos + 8 * ((tag_len + 7) // 8) <= len(buf)  # the tag's last word is read whole
    sel = np.flatnonzero(ok)
    if not len(sel):
        return slow, []
    tags, ids, valid = tag_groups.tag_ids(buf, tag_pos[sel], tag_len[sel])
    passed, series = run.passed_over, run.series
    again = np.array([t in passed and t not in series for t in tags] + [False], dtype=bool)
    deferred = np.zeros(len(slow), dtype=bool)
    deferred[sel] = again[np.where(valid, ids, len(tags))]
    if not deferred.any():
        return slow, []
    return picked[~deferred].tolist(), picked[deferred].tolist()


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
