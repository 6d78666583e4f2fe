"""The event file itself: one-go writing, short writes written again, a deleted file noticed."""

from __future__ import annotations

import io
import os
import threading

import pytest

from tbkit.proto import event_pb2
from tbkit.writer.event_io import create_event_file, identity_of, still_there, write_all, write_event_file

from ._events import parse_events


def test_write_event_file_writes_a_whole_file_at_once(tmp_path) -> None:
    before = threading.active_count()
    events = [event_pb2.Event(step=s, wall_time=1.0 + s, file_version="x") for s in range(3)]
    path = write_event_file(str(tmp_path / "sub"), events)
    assert threading.active_count() == before  # no writer thread
    read = parse_events(path)
    assert read[0].file_version == "brain.Event:2"
    assert [e.step for e in read[1:]] == [0, 1, 2]


class _Trickle(io.RawIOBase):
    """Takes at most 3 bytes per write, then refuses once ``room`` is used up."""

    def __init__(self, room: int) -> None:
        self.got = bytearray()
        self.room = room

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[override]
        take = min(3, len(data), self.room - len(self.got))
        self.got += bytes(data[:take])
        return take


def test_write_all_writes_short_writes_again_and_fails_when_nothing_is_taken() -> None:
    file = _Trickle(room=100)
    write_all(file, b"0123456789")  # type: ignore[arg-type]
    assert bytes(file.got) == b"0123456789"
    full = _Trickle(room=4)
    with pytest.raises(OSError, match="took 0 of"):
        write_all(full, b"0123456789")  # type: ignore[arg-type]
    assert bytes(full.got) == b"0123"


def test_a_deleted_or_replaced_file_is_no_longer_there(tmp_path) -> None:
    file, path = create_event_file(str(tmp_path), "")
    with file:
        identity = identity_of(file)
        assert identity is not None and still_there(path, identity, local=True)
        os.unlink(path)
        assert not still_there(path, identity, local=True)
        open(path, "wb").close()  # another file under the same name
        assert not still_there(path, identity, local=True)
        assert still_there(path, identity, local=False)  # remote files are trusted
