"""The storage layer and the reader against a real S3-compatible server on loopback."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import tbkit
from tbkit.errors import StorageError
from tbkit.record import storage
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

BUCKET = "s3://tbkit-test"


def test_storage_calls(s3: S3Server) -> None:  # noqa: F811
    base = f"{BUCKET}/dir"
    storage.makedirs(base)
    storage.write_bytes(storage.join(base, "a.bin"), b"0123456789")
    path = storage.join(base, "a.bin")
    assert storage.read_bytes(path) == b"0123456789"
    assert storage.read_bytes(path, start=4, limit=3) == b"456"
    assert storage.size(path) == 10
    assert storage.is_file(path) and storage.exists(path)
    assert storage.listdir(base) == [("a.bin", False)]
    with pytest.raises(StorageError) as missing:
        storage.read_bytes(storage.join(base, "none"))
    assert missing.value.path == storage.join(base, "none")
    assert s3.counts()["PUT"] >= 1  # the bytes did go to the server


def _upload(local: Path, url: str) -> None:
    """Put every file under ``local`` at ``url``, as another process would (its own client)."""
    import s3fs

    fs = s3fs.S3FileSystem(skip_instance_cache=True)
    for file in local.rglob("*"):
        if file.is_file():
            fs.pipe_file(url + "/" + "/".join(file.relative_to(local).parts), file.read_bytes())


def test_reading_a_logdir_on_s3_gives_the_local_frames(s3: S3Server, tmp_path: Path) -> None:  # noqa: F811
    for run in ("a", "b/c"):
        with tbkit.SummaryWriter(str(tmp_path / run)) as w:
            for step in range(50):
                w.add_scalar("loss", 1.0 / (step + 1), step)
                w.add_text("note", f"step {step}", step)
    _upload(tmp_path, f"{BUCKET}/logs")
    local, remote = tbkit.read(str(tmp_path)), tbkit.read(f"{BUCKET}/logs")
    for kind in ("scalars", "text"):
        pd.testing.assert_frame_equal(local.frame(kind), remote.frame(kind))
    assert remote.problems().empty
    counts = s3.counts()
    assert counts["LIST"] >= 1 and counts["GET"] + counts["RANGED_GET"] >= 2  # listed, then read


def test_a_reload_sees_new_runs_and_grown_files(s3: S3Server, tmp_path: Path) -> None:  # noqa: F811
    """A reader's listings and sizes are not served from fsspec's cache (they were: nothing new
    was ever seen by a reload of an S3 logdir)."""
    writer = tbkit.SummaryWriter(str(tmp_path / "a"))
    for step in range(10):
        writer.add_scalar("loss", float(step), step)
    writer.flush()
    _upload(tmp_path, f"{BUCKET}/logs")
    logdir = tbkit.read(f"{BUCKET}/logs")
    assert len(logdir.scalars()) == 10

    for step in range(10, 25):
        writer.add_scalar("loss", float(step), step)
    writer.close()  # the object grows: uploaded again, whole, as a writer to S3 does today
    with tbkit.SummaryWriter(str(tmp_path / "b")) as other:
        other.add_scalar("loss", 1.0, 0)
    _upload(tmp_path, f"{BUCKET}/logs")
    frame = logdir.reload().scalars()
    assert frame.groupby("run", observed=True).size().to_dict() == {"a": 25, "b": 1}


def test_list_tree_and_ranged_reads_on_s3(s3: S3Server) -> None:  # noqa: F811
    base = f"{BUCKET}/tree"
    for relative, data in {"a.bin": b"0123456789", "d/e/b.bin": b"xyz"}.items():
        storage.write_bytes(f"{base}/{relative}", data)
    s3.clear()
    assert storage.list_tree(base) == {"a.bin": 10, "d/e/b.bin": 3}
    assert s3.counts() == {"LIST": 1}  # one recursive listing, whatever the depth
    buffer = bytearray(4)
    s3.clear()
    assert storage.read_into(f"{base}/a.bin", 6, memoryview(buffer)) == 4 and buffer == b"6789"
    assert [r.range for r in s3.requests] == ["bytes=6-9"]  # one ranged GET, no HEAD
    assert storage.read_into(f"{base}/a.bin", 10, memoryview(buffer)) == 0  # at the end: nothing, no error
    with pytest.raises(NotADirectoryError):
        storage.list_tree(f"{base}/a.bin")
    assert storage.list_tree(f"{BUCKET}/no/such/prefix") == {}
