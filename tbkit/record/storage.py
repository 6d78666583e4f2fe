"""The one place tbkit touches storage.

Plain local paths go straight to the operating system (the fast path); anything with a
protocol (``memory://``, ``s3://``, ``gs://`` ...) goes through fsspec, imported only then.
"""

from __future__ import annotations

import errno
import os
import posixpath
import threading
from typing import IO, Any

from tbkit.errors import MissingDependencyError, StorageError


def is_local(path: str) -> bool:
    """True for plain filesystem paths (and ``file://`` URLs)."""
    return "://" not in path or path.startswith("file://")


def _local(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _fs(path: str) -> tuple[Any, str]:
    import fsspec

    try:
        fs, stripped = fsspec.core.url_to_fs(path)
    except ImportError as exc:  # fsspec knows the protocol; its package is not installed
        missing = _missing_backend(path.split("://", 1)[0].lower())
        if missing is None:
            raise
        raise missing from exc
    return fs, stripped


def _missing_backend(protocol: str) -> MissingDependencyError | None:
    """The install hint for the object stores tbkit has an extra for."""
    feature = f"{protocol}:// paths"
    if protocol in ("s3", "s3a"):
        return MissingDependencyError("s3fs", extra="s3", feature=feature)
    if protocol in ("gs", "gcs"):
        return MissingDependencyError("gcsfs", extra="gcs", feature=feature)
    if protocol in ("az", "abfs", "abfss", "adl"):
        return MissingDependencyError("adlfs", extra="azure", feature=feature)
    return None


def _fresh_fs(path: str) -> tuple[Any, str]:
    """:func:`_fs` with fsspec's cached listings of ``path`` (and its parents) dropped.

    Object stores' filesystems (s3fs, gcsfs ...) cache listings, sizes included, for the life
    of the instance, and the instance is shared: without this, a reader polling a logdir
    would never see the runs and bytes another process wrote since its first look.
    """
    fs, stripped = _fs(path)
    fs.invalidate_cache(stripped)
    return fs, stripped


def join(base: str, *parts: str) -> str:
    """Join path components, with ``/`` for URLs and the OS separator for local paths."""
    if is_local(base):
        return os.path.join(base, *parts)
    return posixpath.join(base, *parts)


def makedirs(path: str) -> None:
    """Create ``path`` and its parents if missing; raise StorageError if that fails."""
    try:
        if is_local(path):
            os.makedirs(_local(path), exist_ok=True)
        else:
            fs, p = _fs(path)
            fs.makedirs(p, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create directory ({exc.strerror or exc})", path=path) from exc


def open_new(path: str) -> IO[bytes]:
    """Open a new file for writing; never truncates an existing one (FileExistsError)."""
    if is_local(path):
        return open(_local(path), "xb", buffering=0)
    fs, p = _fs(path)
    if fs.exists(p):
        raise FileExistsError(path)
    return fs.open(p, "wb")


def read_bytes(path: str, start: int = 0, limit: int | None = None) -> bytes:
    """Read ``path`` from byte ``start`` to its current end, or at most ``limit`` bytes."""
    size = -1 if limit is None else limit
    try:
        if is_local(path):
            with open(_local(path), "rb") as f:
                if start:
                    f.seek(start)
                return f.read(size)
        fs, p = _fresh_fs(path)
        with fs.open(p, "rb") as f:
            if start:
                f.seek(start)
            return f.read(size)
    except OSError as exc:
        raise StorageError(f"cannot read file ({exc.strerror or exc})", path=path) from exc


def read_into(path: str, start: int, into: memoryview) -> int:
    """Read bytes of ``path`` from byte ``start`` into ``into`` (up to its length, fewer at the
    file's end); returns how many. A reader reusing one buffer saves a fresh allocation, its
    page faults and zeroing, per read."""
    try:
        if is_local(path):
            with open(_local(path), "rb", buffering=0) as f:
                return _fill(f, start, into)
        if not len(into):
            return 0
        fs, p = _fs(path)  # one ranged GET on object stores: no HEAD, and no listing to refresh
        try:
            data = fs.cat_file(p, start=start, end=start + len(into))
        except OSError:
            if start and start >= int(fs.size(p)):  # S3 refuses a range starting past the end
                return 0
            raise
        into[: len(data)] = data
        return len(data)
    except OSError as exc:
        raise StorageError(f"cannot read file ({exc.strerror or exc})", path=path) from exc


def read_sized(path: str, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (its size as a listing gave it): on object stores one
    ranged GET, without the HEAD :func:`read_bytes` makes first; fewer bytes if it shrank since."""
    into = bytearray(size)
    return bytes(into[: read_into(path, 0, memoryview(into))])


def _fill(f: Any, start: int, into: memoryview) -> int:
    if start:
        f.seek(start)
    got = 0
    while got < len(into):
        count = f.readinto(into[got:]) or 0
        if not count:
            break
        got += count
    return got


def size(path: str) -> int:
    """The current size of the file at ``path`` in bytes."""
    try:
        if is_local(path):
            return os.stat(_local(path)).st_size
        fs, p = _fresh_fs(path)
        return int(fs.size(p))
    except OSError as exc:
        raise StorageError(f"cannot stat file ({exc.strerror or exc})", path=path) from exc


def listdir(path: str) -> list[tuple[str, bool]]:
    """``(name, is_dir)`` for every entry directly in directory ``path``, sorted by name."""
    try:
        if is_local(path):
            with os.scandir(_local(path)) as it:
                return sorted((e.name, e.is_dir()) for e in it)
        fs, p = _fresh_fs(path)
        infos = fs.ls(p, detail=True)
        if len(infos) == 1 and infos[0].get("type") != "directory" and _same(infos[0]["name"], p):
            # fsspec lists a file as itself; a file is not a directory, as on local disks
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
        out = []
        for info in infos:
            name = posixpath.basename(info["name"].rstrip("/"))
            out.append((name, info.get("type") == "directory"))
        return sorted(out)
    except OSError as exc:
        raise StorageError(f"cannot list directory ({exc.strerror or exc})", path=path) from exc


def list_tree(path: str) -> dict[str, int]:
    """``{path below path, with / separators: size in bytes}`` for every file under the directory
    ``path``, at any depth, sorted by path.

    On object stores this is one recursive listing of the prefix (S3: one LIST request per
    1,000 objects, however deep the tree), with each object's size taken from the listing, so
    a reader polling a logdir needs no request per directory or per file. Local directories
    are walked (symbolic links to directories are followed, as :func:`listdir` lets a walk do).

    Raises:
        NotADirectoryError: ``path`` is a file.
        StorageError: ``path`` cannot be listed (an empty dict when nothing is there on an object store).

    Example:
        >>> list_tree("memory://no/such/tree")
        {}
    """
    try:
        if is_local(path):
            return _local_tree(_local(path))
        fs, p = _fresh_fs(path)
        root = p.rstrip("/")
        found = fs.find(root, withdirs=False, detail=True)
        out: dict[str, int] = {}
        for name, info in found.items():
            key = name.rstrip("/")
            if key == root:
                if info.get("type") != "directory" and not name.endswith("/"):
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
                continue
            if info.get("type") == "directory" or name.endswith("/") or not key.startswith(root + "/"):
                continue  # a directory placeholder object, not a file
            out[key[len(root) + 1 :]] = int(info.get("size") or 0)
        return dict(sorted(out.items()))
    except NotADirectoryError:
        raise
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StorageError(f"cannot list directory ({exc.strerror or exc})", path=path) from exc


def _local_tree(root: str) -> dict[str, int]:
    if os.path.isfile(root):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), root)
    out: dict[str, int] = {}
    for directory, _, files in os.walk(root, followlinks=True):
        rel = os.path.relpath(directory, root).replace(os.sep, "/")
        for name in files:
            try:
                size_of = os.stat(os.path.join(directory, name)).st_size
            except OSError:
                continue  # gone meanwhile, or a dangling link
            out[name if rel == "." else f"{rel}/{name}"] = size_of
    return dict(sorted(out.items()))


def _same(name: str, path: str) -> bool:
    return name.rstrip("/") == path.rstrip("/")


def is_file(path: str) -> bool:
    """True if ``path`` is a file (False for a directory, or when nothing is there)."""
    try:
        if is_local(path):
            return os.path.isfile(_local(path))
        fs, p = _fresh_fs(path)
        return bool(fs.isfile(p))
    except OSError:
        return False


def exists(path: str) -> bool:
    """True if a file or directory exists at ``path``."""
    if is_local(path):
        return os.path.exists(_local(path))
    fs, p = _fresh_fs(path)
    return bool(fs.exists(p))


def write_bytes(path: str, data: bytes) -> None:
    """Create or replace the file at ``path`` with ``data``, all at once.

    Local files are written to a temporary name beside ``path`` and renamed over it, so a
    reader never sees a half-written file. Other storage writes the object in one call.
    The parent directory must exist (see :func:`makedirs`).
    """
    try:
        if is_local(path):
            target = _local(path)
            tmp = f"{target}.{os.getpid()}.{threading.get_ident()}.tmp"
            try:
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            return
        fs, p = _fs(path)
        with fs.open(p, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise StorageError(f"cannot write file ({exc.strerror or exc})", path=path) from exc
