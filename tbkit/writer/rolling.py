"""Event files on object stores: one new object per flush, never a rewrite.

An object store cannot append: an object is written whole, once. Writing one event file
there the usual way keeps every byte in memory until ``close()`` (nothing is visible
before, and a killed job loses its whole run), or rewrites the whole object at each flush
(quadratic in bytes uploaded). Instead, the writer of a run on ``s3://``, ``gs://`` …
rolls: each flush puts the bytes written since the last one as a new event file beside
the others (``events.out.tfevents.<seconds>.<host>.<pid>.<counter>.<token>``, names that
sort in writing order). Every reader reads every event file of a run in name order —
TensorBoard's loaders and tbkit's alike — so the run reads whole; data are visible within
the flush interval, a killed writer loses at most that interval, and the bytes uploaded
are the bytes written.
"""

from __future__ import annotations

from collections.abc import Callable

from tbkit.record import storage

__all__ = ["ROLL_BYTES", "RollingObjectFile"]

ROLL_BYTES = 64 << 20  # an object is put at the latest when this many bytes are waiting


class RollingObjectFile:
    """A write-only binary file over an object store whose every ``flush`` makes a new object.

    Args:
        first_path: The first object's URL (the event file's name as the writer reports it).
        next_path: Makes the URL of each further object (a fresh event file name beside it).
        roll_bytes: Put an object as soon as this many bytes wait, flush or not.

    Attributes:
        paths: The URLs of the objects put so far, in order.
        uploaded: The bytes put so far.
    """

    def __init__(
        self, first_path: str, next_path: Callable[[], str], *, roll_bytes: int = ROLL_BYTES
    ) -> None:
        self._first = first_path
        self._next = next_path
        self._roll = int(roll_bytes)
        self._pending: list[bytes] = []
        self._size = 0
        self.paths: list[str] = []
        self.uploaded = 0
        self.closed = False

    def write(self, data: bytes) -> int:
        """Keep ``data`` for the next object; put one now if ``roll_bytes`` are waiting."""
        if self.closed:
            raise ValueError("write to a closed file")
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= self._roll:
            self._put()
        return len(data)

    def flush(self) -> None:
        """Put what was written since the last object as a new object (nothing when nothing was)."""
        if self._size:
            self._put()

    def close(self) -> None:
        """Flush, then refuse further writes. Idempotent."""
        if not self.closed:
            self.flush()
            self.closed = True

    def __enter__(self) -> RollingObjectFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _put(self) -> None:
        path = self._next() if self.paths else self._first
        data = b"".join(self._pending)
        storage.write_bytes(path, data)  # raises StorageError, with the path: the writer reports it
        self._pending.clear()
        self._size = 0
        self.paths.append(path)
        self.uploaded += len(data)
