"""An event file written by a background thread.

``add_*`` calls only validate, convert and append to a thread-safe deque; a daemon thread
encodes, frames and writes in batches. The thread writes whenever ``max_queue`` items are
pending and at least every ``flush_secs`` seconds; callers block only when the queue is
over its hard bound. A failure in the thread is kept and raised on the next call or on
``flush()``/``close()``. Writers still open at interpreter exit are closed (their data written).

Faults that would otherwise lose data silently (issue 14):

* **A full disk**: an unbuffered write may write fewer bytes than asked; the rest is written
  again until the kernel refuses (``ENOSPC``), which fails the writer (raised as above).
* **The directory deleted under a running writer** (local files): before each batch the
  thread checks that its path still names its open file; when it does not, the directory
  and a new event file (header, metadata again) are created and writing goes on there, with
  one ``RuntimeWarning`` — TensorFlow's ``EventsWriter`` does the same; torch goes on writing
  into the unlinked file and loses everything. Only what was already on disk when the user
  deleted it is gone. If the directory cannot be made again, the writer fails.
* **``fork()``** (a DataLoader worker): the child inherits the writer but not its thread.
  Its first call opens a file of its own in the same directory (the file name carries the
  pid) with a thread of its own; what the parent had queued is left to the parent. A child
  that never logs creates nothing. In a ``multiprocessing`` child the writer is closed when
  the process ends (its finalizers run; ``atexit`` does not). torch writes nothing from the
  child and raises nothing.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable

from tbkit.errors import StorageError, WriterClosedError, WriterError
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import storage
from tbkit.record.framing import encode_record
from tbkit.writer._scalars import ScalarBatchEncoder
from tbkit.writer.event_io import (
    create_event_file,
    header_record,
    identity_of,
    still_there,
    write_all,
)

_HARD_LIMIT_ITEMS = 1 << 17
_HARD_LIMIT_BYTES = 64 << 20
_BATCH_BYTES = 1 << 20
_SCALAR_BATCH = 1024  # records per NumPy batch: its arrays stay in cache


_live: weakref.WeakSet[EventFileWriter] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for writer in list(_live):
        writer._forked = writer._failed = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _close_all() -> None:
    for writer in list(_live):
        try:
            writer.close()
        except Exception as exc:  # nobody is left to raise to: say it on stderr
            print(f"tbkit: {exc}", file=sys.stderr)


class EventFileWriter:
    """Writes one ``events.out.tfevents.*`` file in ``logdir`` from a background thread.

    Args:
        logdir: The run directory; created if missing. Local path or fsspec URL.
        filename_suffix: Appended to the file name.
        max_queue: Pending items at which the thread is woken before its timer.
        flush_secs: The longest time accepted data waits before it is written.
    """

    def __init__(
        self, logdir: str, *, filename_suffix: str = "", max_queue: int = 1024, flush_secs: float = 2.0
    ) -> None:
        if flush_secs <= 0:
            raise ValueError(f"flush_secs must be positive, got {flush_secs!r}")
        if max_queue < 1:
            raise ValueError(f"max_queue must be at least 1, got {max_queue!r}")
        storage.makedirs(logdir)
        self._logdir, self._suffix = logdir, filename_suffix
        self._local = storage.is_local(logdir)
        self._open_file()
        self._pid = os.getpid()
        self._forked = False  # set in a child after fork(): the next call opens the child's file
        self._flush_secs = float(flush_secs)
        self._wake_at = int(max_queue)
        self._queue: collections.deque[object] = collections.deque()
        self._wake = threading.Event()
        self._error: BaseException | None = None
        self._closed = False
        self._failed = False  # closed or errored: the one flag the hot path reads
        self._bytes_since_wait = 0
        self._tags_with_metadata: set[str] = set()
        self._scalars = ScalarBatchEncoder()
        self._write_header()
        self._thread = self._start_thread()
        _live.add(self)

    def _open_file(self) -> None:
        """A new event file of this writer's directory, and the identity it has on disk."""
        self._file, self.path = create_event_file(self._logdir, self._suffix)
        self._identity = identity_of(self._file) if self._local else None

    def _start_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name=f"tbkit-writer:{self.path}", daemon=True)
        thread.start()
        return thread

    def _write_header(self) -> None:
        try:
            write_all(self._file, header_record())
        except OSError as exc:
            self._file.close()
            raise StorageError(f"cannot write event file ({exc.strerror or exc})", path=self.path) from exc

    # -- the caller's side -------------------------------------------------------------

    def _check(self) -> None:
        if self._forked:
            self._start_in_child()
        if self._closed:
            raise WriterClosedError(path=self.path)
        if self._error is not None:
            raise WriterError(
                f"the background writer failed: {self._error!r}", path=self.path
            ) from self._error

    def _start_in_child(self) -> None:
        """In a child after fork(): a file and a thread of the child's own, the same directory."""
        self._forked = False
        self._queue.clear()  # the parent's pending items: the parent writes them
        self._wake = threading.Event()
        self._pid = os.getpid()
        if self._closed or self._error is not None:
            return  # the child inherits a closed or failed writer as it is
        self._open_file()
        self._tags_with_metadata = set()
        self._scalars = ScalarBatchEncoder()
        self._bytes_since_wait = 0
        self._write_header()
        self._failed = False
        self._thread = self._start_thread()
        util = sys.modules.get("multiprocessing.util")
        if util is not None:  # a multiprocessing child ends with os._exit: atexit would not run
            util.Finalize(self, self._close_quietly, exitpriority=10)

    def _close_quietly(self) -> None:
        try:
            self.close()
        except Exception as exc:  # at the end of a worker process: nobody is left to raise to
            print(f"tbkit: {exc}", file=sys.stderr)

    def add_scalar(self, tag: str, value: float, step: int, wall_time: float) -> None:
        """Queue one scalar (already validated) to be written as a float32 ``simple_value``."""
        if self._failed:
            self._check()
        queue = self._queue
        queue.append((tag, value, step, wall_time))
        if len(queue) >= self._wake_at:
            self._kick(queue)

    def add_summary(self, summary: summary_pb2.Summary, step: int, wall_time: float) -> None:
        """Queue a ``Summary`` event; metadata is kept only on each tag's first value in the file."""
        self._check()
        self._put(event_pb2.Event(wall_time=wall_time, step=step, summary=summary), summary.ByteSize())

    def add_event(self, event: event_pb2.Event) -> None:
        """Queue any ``Event`` as it is."""
        self._check()
        self._put(event, event.ByteSize())

    def add_serialized_events(self, events: list[bytes] | Callable[[], list[bytes]], size: int = 0) -> None:
        """Queue ready ``Event`` bytes, to be framed and written as they are, in queue order.

        The way for tbkit's integrations and plugins to write events they serialize
        themselves (with :mod:`tbkit.record.wire`, or ``Event.SerializeToString()``).
        ``events`` may be a function returning them, called on the writer's thread (in queue
        order): the work of encoding then overlaps the caller's; ``size`` is the memory it
        holds until then (a list's own bytes are counted). The events are not looked at:
        metadata in them is written as it is and not remembered, so a caller sends each
        tag's metadata through ``add_summary`` first and leaves it out here. An exception
        raised by the function fails the writer, as a failed write does.

        Example:
            >>> import tempfile
            >>> from tbkit.proto import event_pb2
            >>> writer = EventFileWriter(tempfile.mkdtemp())
            >>> writer.add_serialized_events([event_pb2.Event(step=1).SerializeToString()])
            >>> writer.close()
        """
        self._check()
        self._put(events, size if callable(events) else sum(map(len, events)))

    def _put(self, item: object, size: int) -> None:
        queue = self._queue
        queue.append(item)
        self._bytes_since_wait += size
        if self._bytes_since_wait > _HARD_LIMIT_BYTES:
            self._bytes_since_wait = 0
            self._wait_written()
        elif len(queue) >= self._wake_at:
            self._kick(queue)

    def _kick(self, queue: collections.deque[object]) -> None:
        if len(queue) > _HARD_LIMIT_ITEMS:
            self._wait_written()
        elif not self._wake.is_set():
            self._wake.set()

    def _wait_written(self) -> None:
        done = threading.Event()
        self._queue.append(done)
        self._wake.set()
        while not done.wait(0.5):
            if not self._thread.is_alive():  # pragma: no cover - the thread only dies at exit
                break

    def flush(self) -> None:
        """Write everything queued so far to the file, and flush the file."""
        self._check()
        self._wait_written()
        self._check()

    def close(self) -> None:
        """Write everything queued, stop the thread and close the file. Idempotent.

        Raises:
            WriterError: The background thread failed at some point.
        """
        if self._closed:
            return
        if self._forked:  # a child that never logged: nothing of its own to write
            self._closed = self._failed = True
            return
        self._wait_written()
        self._closed = self._failed = True
        self._wake.set()
        self._thread.join()
        _live.discard(self)
        try:
            self._file.close()
        except OSError as exc:
            if self._error is None:
                self._fail(exc)
        if self._error is not None:
            raise WriterError(
                f"the background writer failed: {self._error!r}", path=self.path
            ) from self._error

    # -- the thread's side -------------------------------------------------------------

    def _fail(self, exc: BaseException) -> None:
        if self._error is None:
            self._error = exc
        self._failed = True

    def _reopen(self) -> None:
        """The file was deleted (with its directory, say): a new one, header and metadata again."""
        old = self.path
        with contextlib.suppress(OSError):
            self._file.close()
        try:
            storage.makedirs(self._logdir)
            self._open_file()
            write_all(self._file, header_record())
        except Exception as exc:
            self._fail(exc)
            return
        self._tags_with_metadata = set()
        self._scalars = ScalarBatchEncoder()
        message = f"tbkit: event file {old} was deleted while being written; writing {self.path} instead"
        warnings.warn(message, RuntimeWarning, stacklevel=1)

    def _run(self) -> None:
        while True:
            self._wake.wait(self._flush_secs)
            self._wake.clear()
            self._drain()
            if self._closed and not self._queue:
                return

    def _drain(self) -> None:
        queue = self._queue
        if queue and self._error is None and not still_there(self.path, self._identity, self._local):
            self._reopen()
        while queue:
            popleft = queue.popleft
            items = [popleft() for _ in range(len(queue))]
            if set(map(type, items)) == {tuple}:  # only float32 scalars: the fast path
                chunks = [
                    self._encode_batch(items[i : i + _SCALAR_BATCH])
                    for i in range(0, len(items), _SCALAR_BATCH)
                ]
                self._emit(chunks)
                continue
            self._drain_mixed(items)
        self._sync()

    def _drain_mixed(self, items: list[object]) -> None:
        chunks: list[bytes] = []
        scalars: list[tuple[str, float, int, float]] = []
        size = 0
        for item in items:
            if type(item) is tuple:  # a float32 scalar: (tag, value, step, wall_time)
                scalars.append(item)  # type: ignore[arg-type]
                if len(scalars) < _SCALAR_BATCH:
                    continue
            if scalars:
                chunks.append(self._encode_batch(scalars))
                size += len(chunks[-1])
                scalars = []
            if isinstance(item, threading.Event):
                self._emit(chunks)
                chunks, size = [], 0
                self._sync()
                item.set()
            elif type(item) is not tuple:
                chunks.append(self._encode(item))
                size += len(chunks[-1])
            if size >= _BATCH_BYTES:
                self._emit(chunks)
                chunks, size = [], 0
        if scalars:
            chunks.append(self._encode_batch(scalars))
        self._emit(chunks)

    def _encode_batch(self, scalars: list[tuple[str, float, int, float]]) -> bytes:
        if self._error is not None:
            return b""
        try:
            return self._scalars.encode(scalars)
        except Exception as exc:
            self._fail(exc)
            return b""

    def _emit(self, chunks: list[bytes]) -> None:
        if not chunks or self._error is not None:
            return
        try:
            write_all(self._file, b"".join(chunks))
        except Exception as exc:
            self._fail(exc)

    def _sync(self) -> None:
        if self._error is None:
            try:
                self._file.flush()
            except Exception as exc:
                self._fail(exc)

    def _encode(self, item: object) -> bytes:
        if self._error is not None:
            return b""  # already failed: nothing more can be written; the caller is told
        try:
            if type(item) is list:  # from add_serialized_events
                return b"".join([encode_record(event) for event in item])
            if callable(item):  # from add_serialized_events, deferred
                return b"".join([encode_record(event) for event in item()])
            assert isinstance(item, event_pb2.Event)
            if item.HasField("summary"):
                for value in item.summary.value:
                    if value.tag in self._tags_with_metadata:
                        value.ClearField("metadata")
                    elif value.HasField("metadata"):
                        self._tags_with_metadata.add(value.tag)
            return encode_record(item.SerializeToString())
        except Exception as exc:
            self._fail(exc)
            return b""
