"""Writer faults a careless user meets: a read-only directory, closing twice, writing after
close, eight threads on one writer, two processes in one directory in the same second.

Each gets a clear ``tbkit.errors`` error or correct behaviour, and nothing is lost silently.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tbkit
from tbkit import SummaryWriter
from tbkit.errors import StorageError, TbkitError, WriterClosedError


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A read-only tmpfs (root ignores file modes, so ``chmod`` would prove nothing)."""
    mount = tmp_path / "ro"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if done.returncode != 0 or shutil.which("umount") is None:
        pytest.skip(f"cannot mount a read-only tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_read_only_directory_raises_with_the_path(read_only_dir: Path) -> None:
    with pytest.raises(StorageError) as nested:
        SummaryWriter(str(read_only_dir / "run"))
    assert str(read_only_dir / "run") in str(nested.value)
    with pytest.raises(StorageError) as top:
        SummaryWriter(str(read_only_dir))
    assert "Read-only" in str(top.value) and str(read_only_dir) in str(top.value)


def test_close_twice_and_calls_after_close(tmp_path: Path) -> None:
    w = SummaryWriter(str(tmp_path))
    w.add_scalar("x", 1.0, 0)
    w.close()
    w.close()  # a second close is a no-op, as in torch
    for call in (lambda: w.add_scalar("x", 2.0, 1), w.flush, lambda: w.add_text("t", "late", 1)):
        with pytest.raises(WriterClosedError) as raised:
            call()
        assert isinstance(raised.value, TbkitError) and str(tmp_path) in str(raised.value)
    frame = tbkit.read(str(tmp_path)).scalars()
    assert frame[["tag", "step", "value"]].values.tolist() == [["x", 0, 1.0]]  # the accepted point


def test_eight_threads_on_one_writer(tmp_path: Path) -> None:
    w = SummaryWriter(str(tmp_path))
    steps = 5_000

    def log(i: int) -> None:
        for step in range(steps):
            w.add_scalar(f"thread{i}", float(step), step)
            if step % 1000 == 0:
                w.add_text(f"note{i}", f"at {step}", step)

    threads = [threading.Thread(target=log, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    w.close()
    logdir = tbkit.read(str(tmp_path))
    frame = logdir.scalars()
    assert len(frame) == 8 * steps
    for _, group in frame.groupby("tag"):
        assert group["step"].tolist() == list(range(steps))  # each thread's order is kept
        assert group["value"].tolist() == [float(s) for s in range(steps)]
    assert len(logdir.text()) == 8 * 5
    assert logdir.problems().empty


def test_two_processes_in_one_directory_in_the_same_second(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys, time, tbkit
        time.sleep(max(0.0, float(sys.argv[3]) - time.time()))  # both start at one moment
        with tbkit.SummaryWriter(sys.argv[1]) as w:
            for step in range(1000):
                w.add_scalar(sys.argv[2], float(step), step)
        """
    )
    at = str(int(time.time()) + 3)  # a whole second, after both have imported tbkit
    command = [sys.executable, "-c", script, str(tmp_path)]
    children = [subprocess.Popen([*command, tag, at]) for tag in ("first", "second")]
    assert [child.wait(timeout=120) for child in children] == [0, 0]
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2  # one file each, never one clobbering the other
    assert files[0].split(".")[3] == files[1].split(".")[3] == at  # named in the same second
    frame = tbkit.read(str(tmp_path)).scalars()
    assert frame.groupby("tag").size().to_dict() == {"first": 1000, "second": 1000}
