"""Rolling event files on an object store (the loopback S3 server): one object per flush."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import tbkit
from tbkit.errors import StorageError
from tbkit.record import framing
from tbkit.writer.naming import event_file_name
from tbkit.writer.rolling import RollingObjectFile
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

RUN = "s3://tbkit-test/logs/run"


def _file(run: str = RUN, **options: int) -> RollingObjectFile:
    return RollingObjectFile(f"{run}/{event_file_name()}", lambda: f"{run}/{event_file_name()}", **options)


def test_each_flush_puts_only_the_new_bytes(s3: S3Server) -> None:  # noqa: F811
    f = _file()
    f.flush()  # nothing written: nothing put
    assert f.paths == [] and s3.counts()["PUT"] == 0
    chunks = [framing.encode_record(bytes([i]) * 100) for i in range(5)]
    for chunk in chunks:
        f.write(chunk)
        f.flush()
    f.close()
    f.close()
    assert len(f.paths) == 5 and f.paths == sorted(f.paths)  # names sort in writing order
    assert f.uploaded == sum(map(len, chunks))  # linear: nothing is put twice
    assert s3.counts()["PUT"] == 5
    with pytest.raises(ValueError, match="closed"):
        f.write(b"x")


def test_a_full_buffer_is_put_before_the_flush(s3: S3Server) -> None:  # noqa: F811
    f = _file(roll_bytes=1000)
    for _ in range(5):
        f.write(b"a" * 400)
    assert len(f.paths) == 1 and f.uploaded == 1200  # put at the third write, when 1,200 waited
    f.close()
    assert len(f.paths) == 2 and f.uploaded == 2000


def test_a_failed_put_raises_with_the_path(s3: S3Server) -> None:  # noqa: F811
    f = _file("s3://no-such-bucket/run")
    f.write(b"abc")
    with pytest.raises(StorageError) as failed:
        f.flush()
    assert failed.value.path.startswith("s3://no-such-bucket/run/events.out.tfevents.")


def test_tensorboard_and_tbkit_read_a_rolled_run_whole(s3: S3Server, tmp_path: Path) -> None:  # noqa: F811
    """Records split over several objects (a file_version only in the first) read as one run."""
    from tbkit.proto import event_pb2

    counter = itertools.count()
    steps = range(30)
    f = RollingObjectFile(f"{RUN}/{event_file_name()}", lambda: f"{RUN}/{event_file_name()}")
    f.write(
        framing.encode_record(
            event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString()
        )
    )
    for step in steps:
        event = event_pb2.Event(wall_time=1.0 + step, step=step)
        event.summary.value.add(tag="loss", simple_value=float(step))
        f.write(framing.encode_record(event.SerializeToString()))
        if next(counter) % 7 == 6:
            f.flush()
    f.close()
    assert len(f.paths) == 5

    frame = tbkit.read("s3://tbkit-test/logs").scalars()
    assert frame["step"].tolist() == list(steps) and set(frame["run"]) == {"run"}

    import s3fs
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    local = tmp_path / "run"
    s3fs.S3FileSystem(skip_instance_cache=True).get("tbkit-test/logs/run/", str(local), recursive=True)
    acc = EventAccumulator(str(local))
    acc.Reload()
    assert [e.step for e in acc.Scalars("loss")] == list(steps)


def _s3fs() -> object:
    import s3fs

    return s3fs.S3FileSystem(skip_instance_cache=True)


def test_a_writer_on_s3_is_read_within_the_flush_interval(s3: S3Server) -> None:  # noqa: F811
    writer = tbkit.SummaryWriter(RUN, flush_secs=0.5)
    for step in range(50):
        writer.add_scalar("loss", float(step), step)
    deadline = time.monotonic() + 30
    seen = 0
    while time.monotonic() < deadline and seen < 50:  # not closed, not flushed by hand
        time.sleep(0.25)
        frame = tbkit.read("s3://tbkit-test/logs").scalars() if _s3fs().exists(f"{RUN}") else None
        seen = 0 if frame is None else len(frame)
    assert seen == 50
    writer.close()


def test_bytes_uploaded_grow_linearly_with_flushes(s3: S3Server) -> None:  # noqa: F811
    writer = tbkit.SummaryWriter(RUN)
    sizes = []
    for flush in range(12):
        mark = s3.mark()
        for step in range(flush * 100, (flush + 1) * 100):
            writer.add_scalar("loss", float(step), step)
        writer.flush()
        sizes.append(s3.uploaded(mark))
    writer.close()
    assert max(sizes[1:]) <= 1.2 * min(sizes[1:])  # each flush uploads its own 100 points, not all before
    files = _s3fs().ls("tbkit-test/logs/run")
    assert len(files) == 12
    frame = tbkit.read("s3://tbkit-test/logs").scalars()
    assert frame["step"].tolist() == list(range(1200))


def test_a_killed_writer_loses_at_most_one_flush_interval(s3: S3Server) -> None:  # noqa: F811
    script = textwrap.dedent(
        f"""
        import time, tbkit
        w = tbkit.SummaryWriter({RUN!r}, flush_secs=0.5)
        for step in range(10**9):
            w.add_scalar("loss", float(step), step)
            if step % 100 == 99:
                print(step, time.time(), flush=True)
                time.sleep(0.05)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    logged = []
    for line in child.stdout:
        logged.append(tuple(map(float, line.split())))
        if logged[-1][1] - logged[0][1] > 4:
            break
    child.kill()  # SIGKILL: no close, no atexit
    child.wait()
    killed_at = logged[-1][1]
    frame = tbkit.read("s3://tbkit-test/logs").scalars()
    kept = int(frame["step"].max())
    # What the writer had accepted 0.5 s (its flush interval) before the kill is there,
    # give or take one upload's time on this loaded machine.
    before_interval = max(step for step, at in logged if at <= killed_at - 1.5)
    assert kept >= before_interval
    assert frame["step"].tolist() == list(range(kept + 1))  # every point up to there, once
