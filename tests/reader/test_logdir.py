"""``tbkit.read``'s argument: bad arguments raise tbkit errors naming them; one event file is a logdir."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pytest

import tbkit
from tbkit.errors import DataError, InvalidArgumentError, NotFoundError, PathNotFoundError, TbkitError
from tests.reader._events import FILE_NAME, header, records, simple, write


@pytest.fixture(params=["local", "memory"])
def base(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A directory for the test: a local one, or a fresh ``memory://`` one."""
    if request.param == "local":
        yield str(tmp_path)
        return
    root = f"/tbkit-read-test-{uuid.uuid4().hex}"
    yield f"memory://{root}"
    fs = fsspec.filesystem("memory")
    if fs.exists(root):
        fs.rm(root, recursive=True)


def _put(base: str, relative: str, data: bytes) -> str:
    path = f"{base}/{relative}"
    if base.startswith("memory://"):
        fsspec.filesystem("memory").pipe(path[len("memory://") :], data)
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)
    return path


def test_a_missing_path_raises_path_not_found_naming_it(base: str) -> None:
    missing = f"{base}/no/such/logdir"
    with pytest.raises(PathNotFoundError) as info:
        tbkit.read(missing)
    assert info.value.path == missing
    assert missing in str(info.value)
    assert isinstance(info.value, NotFoundError) and isinstance(info.value, FileNotFoundError)
    assert isinstance(info.value, TbkitError) and info.value.http_code == 404


def test_the_empty_string_raises_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        tbkit.read("")
    assert "logdir is empty ('')" in str(info.value)


@pytest.mark.parametrize("value", [None, 42, 2.5, ["runs"]])
def test_a_non_path_raises_invalid_argument_naming_it(value: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        tbkit.read(value)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith("logdir must be a path")
    assert repr(value) in message and type(value).__name__ in message


def test_a_file_that_is_not_an_event_file_raises_data_error_naming_it(base: str) -> None:
    for name, data in (("notes.txt", b"hello, not records"), ("empty.bin", b"")):
        path = _put(base, name, data)
        with pytest.raises(DataError) as info:
            tbkit.read(path)
        assert info.value.path == path
        assert path in str(info.value) and "not an event file" in str(info.value)


def test_an_unknown_protocol_raises_invalid_argument_naming_the_url() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        tbkit.read("nosuchprotocol://bucket/logs")
    assert "nosuchprotocol://bucket/logs" in str(info.value)


def test_one_event_file_is_a_logdir_with_one_run_named_dot(base: str) -> None:
    first = _put(base, f"train/{FILE_NAME}", records([header(), simple("loss", 1, 0.5)]))
    _put(base, "train/events.out.tfevents.1700000001.host.1.0", records([header(), simple("acc", 1, 0.9)]))
    ld = tbkit.read(first)
    assert ld.path == first
    runs = ld.runs()
    assert list(runs["run"]) == ["."]
    assert list(runs["event_files"].iloc[0]) == [first]
    scalars = ld.scalars()
    assert list(zip(scalars["run"], scalars["tag"], scalars["step"], scalars["value"], strict=True)) == [
        (".", "loss", 1, 0.5)
    ]
    assert ld.reload().scalars()["tag"].tolist() == ["loss"]
    assert ld.problems().empty and ld.embeddings().empty and ld.traces().empty


def test_a_renamed_event_file_is_read_by_its_content(tmp_path: Path) -> None:
    path = write(tmp_path, [header(), simple("loss", 3, 1.5)], name="copy.bin")
    frame = tbkit.read(path).scalars()  # a pathlib.Path, too
    assert frame[["run", "tag", "step", "value"]].values.tolist() == [[".", "loss", 3, 1.5]]


def test_an_existing_empty_directory_still_reads_as_an_empty_logdir(base: str) -> None:
    _put(base, "not_a_run/readme.txt", b"nothing to see")
    ld = tbkit.read(base)
    assert ld.runs().empty and ld.scalars().empty
