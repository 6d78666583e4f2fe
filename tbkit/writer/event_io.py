"""The event file itself: creating one, its header, writing all of a batch, noticing its deletion.

:class:`~tbkit.writer.event_file.EventFileWriter` (a background thread) and
:func:`write_event_file` (one go, in the caller's thread) both write through these. A local
event file is created exclusively under a fresh name; on an object store the file is a
:class:`~tbkit.writer.rolling.RollingObjectFile`, a new object per flush, never a rewrite.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import IO, cast

from tbkit.errors import StorageError
from tbkit.proto import event_pb2
from tbkit.record import storage
from tbkit.record.framing import encode_record
from tbkit.writer.naming import event_file_name
from tbkit.writer.rolling import RollingObjectFile

__all__ = [
    "FILE_VERSION",
    "create_event_file",
    "header_record",
    "identity_of",
    "still_there",
    "write_all",
    "write_event_file",
]

FILE_VERSION = "brain.Event:2"


def header_record() -> bytes:
    """The framed first record of an event file: its ``file_version``, tbkit as the writer."""
    header = event_pb2.Event(wall_time=time.time(), file_version=FILE_VERSION)
    header.source_metadata.writer = "tbkit"
    return encode_record(header.SerializeToString())


def create_event_file(logdir: str, suffix: str) -> tuple[IO[bytes], str]:
    """A new, empty event file in ``logdir`` (which exists) and its path.

    Raises:
        StorageError: The file cannot be created.
    """
    if not storage.is_local(logdir):
        path = storage.join(logdir, event_file_name(suffix))
        rolling = RollingObjectFile(path, lambda: storage.join(logdir, event_file_name(suffix)))
        return cast(IO[bytes], rolling), path
    for _ in range(100):
        path = storage.join(logdir, event_file_name(suffix))
        try:
            return storage.open_new(path), path
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot create event file ({exc.strerror or exc})", path=path) from exc
    raise StorageError("cannot find a free event file name", path=logdir)  # pragma: no cover


def write_event_file(logdir: str, events: Iterable[event_pb2.Event], *, filename_suffix: str = "") -> str:
    """Write a whole event file at once, in the caller's thread: the header, then ``events``.

    For short-lived runs written in one go (such as an hparams session in its own run),
    where starting a writer thread would cost more than the writing.

    Returns:
        The new file's path.

    Raises:
        StorageError: The file cannot be created or written.
    """
    storage.makedirs(logdir)
    file, path = create_event_file(logdir, filename_suffix)
    try:
        with file:
            file.write(header_record() + b"".join(encode_record(e.SerializeToString()) for e in events))
    except OSError as exc:
        raise StorageError(f"cannot write event file ({exc.strerror or exc})", path=path) from exc
    return path


def write_all(file: IO[bytes], data: bytes) -> None:
    """Write all of ``data``: an unbuffered write may write fewer bytes (a disk filling up);
    the rest is written again until the kernel refuses it (``ENOSPC`` raises ``OSError``)."""
    view = memoryview(data)
    while view:
        written = file.write(view)
        if written is None:  # fsspec files buffer: they take everything
            return
        if written <= 0:
            raise OSError(f"the file took {written} of {len(view)} bytes")
        view = view[written:]


def identity_of(file: IO[bytes]) -> tuple[int, int] | None:
    """``(inode, device)`` of a local open file (None when it has no descriptor)."""
    try:
        found = os.fstat(file.fileno())
    except (OSError, AttributeError, ValueError):
        return None
    return found.st_ino, found.st_dev


def still_there(path: str, identity: tuple[int, int] | None, local: bool) -> bool:
    """Whether ``path`` still names the open file of ``identity`` (remote files are trusted)."""
    if not local:
        return True
    try:
        on_disk = os.stat(path)
    except OSError:
        return False
    return identity is None or (on_disk.st_ino, on_disk.st_dev) == identity
