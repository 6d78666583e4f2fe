"""Writer faults that lost data silently (issue 14): a full disk, the directory deleted under a
running writer, logging from a child after ``fork()``. Each now writes or raises.

The full disk is real: a 64 KiB tmpfs mounted for the test (root only; skipped otherwise).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tbkit import SummaryWriter
from tbkit.errors import StorageError, WriterError

from ._events import event_files, parse_events


def _steps(path: str, tag: str = "loss") -> list[int]:
    return [e.step for e in parse_events(path) for v in e.summary.value if v.tag == tag]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, unmounted after the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        gc.collect()  # a writer a failed test left behind holds its file open
        if subprocess.run(["umount", str(mount)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=True)  # detached now, freed when closed


def test_a_full_disk_fails_flush_instead_of_losing_the_data(small_disk: Path) -> None:
    """A short write (the disk filling up) lost the rest silently: flush() returned, 64 KiB kept."""
    writer = SummaryWriter(str(small_disk / "run"), max_queue=100_000, flush_secs=100)
    for step in range(5000):  # about 150 KB of records: more than the disk holds
        writer.add_scalar("loss", float(step), step)
    with pytest.raises(WriterError, match="No space left") as info:
        writer.flush()
    assert info.value.path is not None and info.value.path.startswith(str(small_disk / "run"))
    with pytest.raises(WriterError, match="No space left"):
        writer.close()


def test_a_writer_on_a_full_disk_raises_a_storage_error_with_the_path(small_disk: Path) -> None:
    (small_disk / "filler").write_bytes(b"\0" * (64 << 10))  # nothing left
    with pytest.raises(StorageError) as info:
        SummaryWriter(str(small_disk / "run"))
    assert info.value.path is not None and info.value.path.startswith(str(small_disk / "run"))


def test_a_deleted_log_directory_is_made_again_with_a_new_file(tmp_path: Path) -> None:
    """torch (and tbkit before) went on writing into the unlinked file: nothing on disk."""
    run = tmp_path / "run"
    writer = SummaryWriter(str(run), flush_secs=100)
    writer.add_text("note", "first", 0)  # a tag with metadata: it must be written again
    writer.add_scalar("loss", 0.0, 0)
    writer.flush()
    shutil.rmtree(run)
    for step in range(1, 4):
        writer.add_scalar("loss", float(step), step)
    writer.add_text("note", "again", 1)
    with pytest.warns(RuntimeWarning, match="was deleted while being written"):
        writer.flush()
    writer.close()
    files = event_files(str(run))
    assert len(files) == 1
    events = parse_events(files[0])
    assert events[0].file_version == "brain.Event:2"
    assert _steps(files[0]) == [1, 2, 3]
    notes = [v for e in events for v in e.summary.value if v.tag.startswith("note")]
    assert len(notes) == 1 and notes[0].metadata.plugin_data.plugin_name == "text"


def test_a_deleted_file_alone_is_written_again(tmp_path: Path) -> None:
    writer = SummaryWriter(str(tmp_path), flush_secs=100)
    writer.add_scalar("loss", 0.0, 0)
    writer.flush()
    os.remove(event_files(str(tmp_path))[0])
    writer.add_scalar("loss", 1.0, 1)
    with pytest.warns(RuntimeWarning, match="was deleted"):
        writer.close()
    assert [_steps(f) for f in event_files(str(tmp_path))] == [[1]]


def test_a_child_after_fork_writes_a_file_of_its_own(tmp_path: Path) -> None:
    """A child logging after fork() wrote nothing and got no error (the thread is not inherited)."""
    writer = SummaryWriter(str(tmp_path), flush_secs=100)
    writer.add_scalar("loss", 0.0, 0)
    writer.add_scalar("loss", 1.0, 1)  # queued, not yet written, at the fork
    pid = os.fork()
    if pid == 0:  # the child: any failure is its exit code
        code = 1
        try:
            for step in range(100, 105):
                writer.add_scalar("loss", float(step), step)
            writer.flush()
            writer.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    writer.add_scalar("loss", 2.0, 2)
    writer.close()
    by_file = sorted(_steps(f) for f in event_files(str(tmp_path)))
    assert by_file == [[0, 1, 2], [100, 101, 102, 103, 104]]


def test_a_child_that_never_logs_creates_nothing(tmp_path: Path) -> None:
    writer = SummaryWriter(str(tmp_path), flush_secs=100)
    writer.add_scalar("loss", 0.0, 0)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            writer.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    writer.close()
    assert [_steps(f) for f in event_files(str(tmp_path))] == [[0]]


_WRITER: SummaryWriter | None = None


def _worker_logs(first: int) -> None:
    """A DataLoader-like worker: logs through the inherited writer and returns without closing it."""
    assert _WRITER is not None
    for step in range(first, first + 3):
        _WRITER.add_scalar("worker", float(step), step)


def test_a_multiprocessing_worker_that_does_not_close_still_writes(tmp_path: Path) -> None:
    """A multiprocessing child ends with os._exit (no atexit): its writer is closed by a finalizer."""
    global _WRITER
    _WRITER = SummaryWriter(str(tmp_path / uuid.uuid4().hex), flush_secs=100)
    try:
        _WRITER.add_scalar("worker", -1.0, -1)
        process = multiprocessing.get_context("fork").Process(target=_worker_logs, args=(10,))
        process.start()
        process.join()
        assert process.exitcode == 0
    finally:
        _WRITER.close()
    found = sorted(_steps(f, "worker") for f in event_files(_WRITER.log_dir))
    _WRITER = None
    assert found == [[-1], [10, 11, 12]]
