"""Rolling event files on an object store (the loopback S3 server): one object per flush."""

from __future__ import annotations

import itertools
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
