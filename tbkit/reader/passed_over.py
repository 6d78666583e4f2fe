"""Applying the records a ``scalars_only`` read passed over (:attr:`RunData.deferred`), later.

Each record is read again at its offset, by windows of :data:`CHUNK` bytes framed (and their
checksums checked) once by the record layer. The records of one window that follow each other
with no restart replayed between them are applied as a batch: its legacy histograms are
decoded in bulk by the compiled core (:mod:`tbkit.reader.histogram_records`), the others
parsed as an ``Event`` one by one, in the order they were read.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager

import numpy as np
from google.protobuf.message import DecodeError

from tbkit._memory import release_when_due
from tbkit.errors import StorageError
from tbkit.plugins import registry
from tbkit.plugins.guarded import GuardedDecoder
from tbkit.proto import event_pb2
from tbkit.reader.events import RunData
from tbkit.reader.file_state import FileState
from tbkit.reader.histogram_records import HistogramRecords, decode_histograms
from tbkit.reader.series import SeriesData
from tbkit.record import storage
from tbkit.record.framing import HEADER_SIZE, Status, parse_record
from tbkit.record.scan import scan_records

__all__ = ["CHUNK", "load_passed_over"]

CHUNK = 4 << 20  # bytes read again at a time

# One path's window: its file offset, its bytes, and the data start and length of each record framed in it.
_Window = tuple[int, bytes | memoryview, np.ndarray, np.ndarray]
_NO_RECORDS = np.zeros(0, dtype=np.int64)


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
    windows: dict[str, _Window] = {}
    replayed = 0
    i = 0
    while i < len(deferred):
        path, offset, seen = deferred[i]
        window = _locate(run, path, offset, windows, lock)
        with lock:
            for step in restarts[replayed:seen]:
                run.purge_passed_over(step)
            replayed = max(replayed, seen)
        if window is None:  # a problem recorded
            i += 1
            continue
        j = _batch_end(deferred, i, window)
        _apply_batch(run, path, window, [at for _, at, _ in deferred[i:j]], lock)
        i = j
    with lock:
        for step in restarts[replayed:]:
            run.purge_passed_over(step)
        run.passed_over.clear()
    release_when_due(sum(len(window[1]) for window in windows.values()))


def _batch_end(deferred: list[tuple[str, int, int]], i: int, window: _Window) -> int:
    """The end of the batch from ``deferred[i]`` (framed in ``window``): the next records of the
    same path, seen after the same restarts, each framed whole in the window."""
    path, _, seen = deferred[i]
    start, data, starts, _ = window
    stop = start + len(data)
    j = i + 1
    while j < len(deferred) and deferred[j][0] == path and deferred[j][2] == seen and deferred[j][1] < stop:
        j += 1
    if j - i > 1:
        wanted = np.array([at for _, at, _ in deferred[i + 1 : j]], dtype=np.int64) + (HEADER_SIZE - start)
        found = np.minimum(np.searchsorted(starts, wanted), len(starts) - 1)
        missing = np.flatnonzero(starts[found] != wanted)
        if len(missing):  # read again from there (or said to be changed) by the next batch
            j = i + 1 + int(missing[0])
    return j


def _apply_batch(
    run: RunData, path: str, window: _Window, offsets: list[int], lock: AbstractContextManager[object]
) -> None:
    """Apply the records at file ``offsets`` of ``path``, each framed in ``window``."""
    start, data, starts, lengths = window
    at = np.searchsorted(starts, np.array(offsets, dtype=np.int64) + (HEADER_SIZE - start))
    picked_starts, picked_lengths = starts[at], lengths[at]
    fast = decode_histograms(data, picked_starts, picked_lengths)
    ids = fast.ids if fast is not None else [-1] * len(offsets)
    state = run.files[path]
    # A tag's first histogram goes through apply_histogram (every check, the series made);
    # its next ones straight to the series that took it, through the same decoder.
    took: dict[str, tuple[SeriesData, GuardedDecoder | None]] = {}
    with lock:
        for k, (a, n) in enumerate(zip(picked_starts.tolist(), picked_lengths.tolist(), strict=True)):
            if ids[k] >= 0:
                assert fast is not None
                tag = fast.tags[ids[k]]
                known = took.get(tag)
                if known is None or not _added(run, known, fast, k, state):
                    series = run.apply_histogram(tag, fast.steps[k], fast.walls[k], fast.rows_of(k), state)
                    if series is not None:
                        took[tag] = (series, registry.decoder(series.meta.plugin_name))
                continue
            try:
                event = event_pb2.Event.FromString(data[a : a + n])
            except DecodeError as exc:
                run.problem(path, offsets[k], f"undecodable event ({exc})")
                continue
            run.apply_passed_over(event, state)


def _added(
    run: RunData,
    known: tuple[SeriesData, GuardedDecoder | None],
    fast: HistogramRecords,
    k: int,
    state: FileState,
) -> bool:
    """Add histogram ``k`` of ``fast`` to the series that took its tag's last one; False (nothing
    added) when its decoder refuses the rows, for apply_histogram to say why."""
    series, dec = known
    rows = fast.rows_of(k)
    try:
        stored = dec.decode(rows) if dec is not None else rows
    except (ValueError, IndexError, TypeError):
        return False
    run.generation += 1
    run.add_point(series, fast.steps[k], fast.walls[k], stored, state)
    return True


def _locate(
    run: RunData, path: str, offset: int, windows: dict[str, _Window], lock: AbstractContextManager[object]
) -> _Window | None:
    """The window of ``path`` in which the record at ``offset`` is framed whole: the last one
    read, else one read again from ``offset``. None (a problem recorded) when it cannot be
    read or is not a whole, intact record there any more."""
    start, data, starts, _ = windows.get(path, (0, b"", _NO_RECORDS, _NO_RECORDS))
    if _framed(starts, offset - start):
        return windows[path]
    try:  # each path's windows are read into one buffer (the window before is done with)
        if isinstance(data, memoryview) and len(data.obj) == CHUNK:  # type: ignore[arg-type]
            buffer = data.obj
        else:  # no bigger than what is left of the file: many small files may be re-read at once
            buffer = bytearray(max(min(CHUNK, storage.size(path) - offset), HEADER_SIZE))
        start, data = offset, memoryview(buffer)[: storage.read_into(path, offset, memoryview(buffer))]  # type: ignore[arg-type]
        if len(data) >= HEADER_SIZE and parse_record(data, 0).status is Status.PARTIAL:
            length = int.from_bytes(data[:8], "little")  # a record longer than CHUNK
            if length < storage.size(path):
                data = storage.read_bytes(path, offset, HEADER_SIZE + length + 4)
    except StorageError as exc:
        with lock:
            run.problem(path, offset, f"record passed over cannot be read again ({exc})")
        return None
    scan = scan_records(data)
    window = windows[path] = (start, data, scan.starts, scan.lengths)
    if _framed(scan.starts, 0):
        return window
    status = parse_record(data, 0).status  # not a whole, intact record there any more: say how
    reason = "incomplete" if status is Status.PARTIAL else status.value
    with lock:
        run.problem(path, offset, f"corrupt record (changed since it was first read): {reason}")
    return None


def _framed(starts: np.ndarray, at: int) -> bool:
    """Whether an intact record of a framed window has its header at ``at``."""
    i = int(np.searchsorted(starts, at + HEADER_SIZE))
    return at >= 0 and i < len(starts) and int(starts[i]) == at + HEADER_SIZE
