"""Storage: local paths and ``memory://`` URLs behave alike; failures are StorageError with the path."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import fsspec
import pytest

from tbkit.errors import MissingDependencyError, StorageError, TbkitError
from tbkit.record import storage


@pytest.fixture(params=["local", "memory"])
def base(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "local":
        yield str(tmp_path)
        return
    root = f"memory://tbkit-test-{uuid.uuid4().hex}"
    yield root
    fs = fsspec.filesystem("memory")
    stripped = root[len("memory://") :]
    if fs.exists(stripped):
        fs.rm(stripped, recursive=True)


def _write(path: str, data: bytes) -> None:
    f = storage.open_new(path)
    try:
        f.write(data)
    finally:
        f.close()


def test_is_local() -> None:
    assert storage.is_local("/tmp/x")
    assert storage.is_local("relative/dir")
    assert storage.is_local("file:///tmp/x")
    assert not storage.is_local("memory://x")
    assert not storage.is_local("s3://bucket/key")


def test_join_uses_slash_for_urls_and_os_separator_locally() -> None:
    assert storage.join("memory://root", "a", "b") == "memory://root/a/b"
    assert storage.join("s3://bucket/logs/", "run") == "s3://bucket/logs/run"
    assert storage.join("logs", "run", "f") == os.path.join("logs", "run", "f")


def test_makedirs_creates_parents_and_is_idempotent(base: str) -> None:
    deep = storage.join(base, "a", "b", "c")
    assert not storage.exists(deep)
    storage.makedirs(deep)
    storage.makedirs(deep)
    assert storage.exists(deep)
    assert storage.listdir(storage.join(base, "a")) == [("b", True)]


def test_open_new_write_and_read_back(base: str) -> None:
    path = storage.join(base, "f.bin")
    _write(path, b"0123456789")
    assert storage.exists(path)
    assert storage.size(path) == 10
    assert storage.read_bytes(path) == b"0123456789"
    assert storage.read_bytes(path, 4) == b"456789"
    assert storage.read_bytes(path, 10) == b""
    assert storage.read_bytes(path, 50) == b""


def test_open_new_never_truncates_an_existing_file(base: str) -> None:
    path = storage.join(base, "keep.bin")
    _write(path, b"precious")
    with pytest.raises(FileExistsError):
        storage.open_new(path)
    assert storage.read_bytes(path) == b"precious"


def test_listdir_sorted_with_kinds(base: str) -> None:
    storage.makedirs(storage.join(base, "zdir"))
    storage.makedirs(storage.join(base, "adir"))
    _write(storage.join(base, "m.txt"), b"x")
    _write(storage.join(base, "b.txt"), b"y")
    assert storage.listdir(base) == [("adir", True), ("b.txt", False), ("m.txt", False), ("zdir", True)]


def test_exists_is_false_for_missing(base: str) -> None:
    assert not storage.exists(storage.join(base, "missing"))


@pytest.mark.parametrize(
    "call",
    [
        lambda p: storage.read_bytes(p),
        lambda p: storage.read_bytes(p, 3),
        lambda p: storage.size(p),
        lambda p: storage.listdir(p),
        lambda p: storage.read_into(p, 0, memoryview(bytearray(4))),
    ],
    ids=["read_bytes", "read_bytes_offset", "size", "listdir", "read_into"],
)
def test_missing_path_raises_storage_error_with_path(base: str, call) -> None:
    path = storage.join(base, "no", "such", "thing")
    with pytest.raises(StorageError) as info:
        call(path)
    assert info.value.path == path
    assert path in str(info.value)
    assert isinstance(info.value, TbkitError) and isinstance(info.value, OSError)


def test_makedirs_under_a_regular_file_raises_storage_error(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    target = str(blocker / "run")
    with pytest.raises(StorageError) as info:
        storage.makedirs(target)
    assert info.value.path == target
    assert target in str(info.value)


def test_file_url_is_local(tmp_path) -> None:
    path = tmp_path / "f.bin"
    _write("file://" + str(path), b"abc")
    assert path.read_bytes() == b"abc"
    assert storage.read_bytes("file://" + str(path), 1) == b"bc"
    assert storage.size("file://" + str(path)) == 3
    assert storage.exists("file://" + str(path))
    assert storage.listdir("file://" + str(tmp_path)) == [("f.bin", False)]


def test_read_bytes_sees_appended_data(base: str) -> None:
    # A reader polling a growing file reads only the new bytes from its offset.
    path = storage.join(base, "grow.bin")
    if storage.is_local(path):
        f = storage.open_new(path)
        f.write(b"first")
        assert storage.read_bytes(path) == b"first"
        f.write(b"second")
        f.close()
    else:
        _write(path, b"firstsecond")
    assert storage.read_bytes(path, len(b"first")) == b"second"


def test_listdir_of_a_file_raises_storage_error_like_a_local_disk(base: str) -> None:
    # fsspec's ls() of a file answers the file itself; listing it must fail as on a local disk.
    path = storage.join(base, "events.out.tfevents.1")
    _write(path, b"x")
    with pytest.raises(StorageError) as info:
        storage.listdir(path)
    assert info.value.path == path


def test_is_file(base: str) -> None:
    path = storage.join(base, "f.bin")
    _write(path, b"x")
    storage.makedirs(storage.join(base, "d"))
    assert storage.is_file(path)
    assert not storage.is_file(storage.join(base, "d"))
    assert not storage.is_file(storage.join(base, "missing"))


def test_read_into_fills_a_reused_buffer_from_an_offset(base: str) -> None:
    path = storage.join(base, "data.bin")
    _write(path, bytes(range(100)))
    buffer = bytearray(b"\xff" * 40)
    assert storage.read_into(path, 10, memoryview(buffer)[:30]) == 30
    assert bytes(buffer[:30]) == bytes(range(10, 40)) and buffer[30:] == b"\xff" * 10
    assert storage.read_into(path, 90, memoryview(buffer)) == 10  # fewer at the end of the file
    assert bytes(buffer[:10]) == bytes(range(90, 100))
    assert storage.read_into(path, 100, memoryview(buffer)) == 0


def test_list_tree_gives_every_file_below_with_its_size(base: str) -> None:
    for relative, data in {"a.bin": b"12", "d/b.bin": b"345", "d/e/c.bin": b"", ".h/x": b"1"}.items():
        storage.makedirs(storage.join(base, *relative.split("/")[:-1]))
        storage.write_bytes(storage.join(base, *relative.split("/")), data)
    assert storage.list_tree(base) == {".h/x": 1, "a.bin": 2, "d/b.bin": 3, "d/e/c.bin": 0}
    with pytest.raises(NotADirectoryError):
        storage.list_tree(storage.join(base, "a.bin"))


def test_read_into_reads_from_an_offset_up_to_the_buffer_or_the_end(base: str) -> None:
    path = storage.join(base, "r.bin")
    storage.write_bytes(path, b"0123456789")
    buffer = bytearray(4)
    assert storage.read_into(path, 3, memoryview(buffer)) == 4 and buffer == b"3456"
    assert storage.read_into(path, 8, memoryview(buffer)) == 2 and buffer[:2] == b"89"
    assert storage.read_into(path, 10, memoryview(buffer)) == 0


@pytest.mark.parametrize(
    ("url", "extra"),
    [("gs://bucket/logs", "gcs"), ("abfs://container/logs", "azure"), ("az://c/logs", "azure")],
)
def test_an_object_store_without_its_package_names_the_extra(url: str, extra: str) -> None:
    import importlib.util

    package = {"gcs": "gcsfs", "azure": "adlfs"}[extra]
    if importlib.util.find_spec(package) is not None:
        pytest.skip(f"{package} is installed")
    with pytest.raises(MissingDependencyError, match=rf'pip install "tbkit\[{extra}\]"'):
        storage.exists(url)
