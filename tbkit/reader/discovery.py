"""Finding the runs of a logdir: every directory that directly holds event files.

A run is named by its path relative to the logdir, with ``/`` separators (``.`` for
the logdir itself). Event files are files whose name contains ``tfevents``; a run's
files are listed in name order. Hidden directories (name starting with ``.``) are
skipped. All access goes through :mod:`tbkit.record.storage`.

A logdir that is itself a file is one run named ``.`` holding that file (``tbkit.read`` of
one event file); :func:`looks_like_event_file` tells whether a file is one, and
:func:`checked_logdir` whether a path given as a logdir names anything readable.

A directory holding a file-based plugin's files but no event files can be a run too (with
no event files): each such plugin's decoder decides, by its ``run_of(directory, files)``.
The profile plugin's makes runs of profiler traces, as the profile viewers show them:
``torch.profiler.tensorboard_trace_handler``'s ``<run>/<worker>.<timestamp>.pt.trace.json[.gz]`` and
``<run>/plugins/profile/<session>/<worker>.trace.json[.gz]`` (see
:mod:`tbkit.plugins.profile.decode`).

On object stores (any URL but ``file://``) a logdir is listed once, recursively
(:func:`tbkit.record.storage.list_tree`: one LIST request per 1,000 objects, not one per
directory), and the listing gives each event file's size (:class:`Discovered`), so a
reload asks nothing about a file whose size did not change, and a checkpoint folder with
thousands of shards costs no request of its own. Local logdirs are walked directory by
directory, hidden directories never entered.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tbkit.errors import DataError, InvalidArgumentError, PathNotFoundError, StorageError, TbkitError
from tbkit.plugins import registry
from tbkit.record import storage
from tbkit.record.framing import HEADER_SIZE, Status, parse_record

__all__ = [
    "Discovered",
    "checked_logdir",
    "discover",
    "discover_runs",
    "is_event_file",
    "listed_at_open",
    "looks_like_event_file",
]

_MAX_DEPTH = 64


def _trace_runs() -> list[Callable[[str, list[str]], str | None]]:
    """The file-based plugins' ``run_of(directory, files)``: which run a directory's files make."""
    found = (getattr(registry.decoder(name), "run_of", None) for name in registry.file_based_plugins())
    return [run_of for run_of in found if run_of is not None]


def is_event_file(name: str) -> bool:
    """True for file names TensorBoard reads as event files (containing ``tfevents``)."""
    return "tfevents" in name


def looks_like_event_file(path: str) -> bool:
    """True if the file at ``path`` is named like an event file or starts with a TFRecord header.

    The header test reads 12 bytes: a length whose masked CRC-32C checks out, as every record
    of an event file starts (so a renamed event file is recognised, a text file is not).

    Raises:
        StorageError: The file cannot be read.
    """
    if is_event_file(path.replace("\\", "/").rsplit("/", 1)[-1]):
        return True
    head = storage.read_bytes(path, 0, HEADER_SIZE)
    return len(head) == HEADER_SIZE and parse_record(head, 0).status is Status.PARTIAL


@dataclass(frozen=True)
class Discovered:
    """What one discovery found: the runs, and the sizes the listing gave.

    Attributes:
        runs: ``{run name: [event file paths, in name order]}``, sorted by run name.
        sizes: ``{event file path: size in bytes}`` as listed (object stores); empty for local
            logdirs, whose sizes are asked of the file system when a file is read.
        tree: The whole listing on object stores, ``{path below the logdir: size}`` of every
            file (event files or not), from which the file-based plugins list their files
            without asking again; None for local logdirs (and a logdir that is a file).
    """

    runs: dict[str, list[str]]
    sizes: dict[str, int] = field(default_factory=dict)
    tree: dict[str, int] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def _keys(self) -> list[str]:
        return sorted(self.tree or ())

    def of_run(self, run: str) -> Discovered:
        """This discovery as the run's own directory's discovery would be: run ``.``."""
        paths = self.runs.get(run)
        if paths is None:
            return Discovered({})
        listing = tree = self.tree
        if listing is not None and run != ".":  # the keys below the run's directory, by bisection
            keys = self._keys
            prefix = run + "/"
            chosen = keys[bisect_left(keys, prefix) : bisect_left(keys, run + "0")]  # "0" follows "/"
            tree = {key[len(prefix) :]: listing[key] for key in chosen}
        return Discovered({".": list(paths)}, {p: self.sizes[p] for p in paths if p in self.sizes}, tree)


def discover(logdir: str) -> Discovered:
    """The runs under ``logdir`` with their event files (and, on object stores, their sizes).

    Example:
        >>> discover("memory://no/such/dir")
        Discovered(runs={}, sizes={})
    """
    if storage.is_local(logdir):
        return Discovered(_walk(logdir))
    return _from_listing(logdir)


def discover_runs(logdir: str) -> dict[str, list[str]]:
    """``{run name: [event file paths, in name order]}`` for every run under ``logdir``.

    A ``logdir`` that is a file gives ``{".": [logdir]}``, whatever its name.

    Example:
        >>> discover_runs("memory://no/such/dir")
        {}
    """
    return discover(logdir).runs


def _from_listing(logdir: str) -> Discovered:
    """Discovery from one recursive listing (see :func:`tbkit.record.storage.list_tree`)."""
    try:
        tree = storage.list_tree(logdir)
    except NotADirectoryError:
        return Discovered({".": [logdir]})
    except StorageError:
        return Discovered({})
    files_of: dict[str, list[str]] = {}  # directory (a run name) -> its files' names
    for relative in tree:
        parts = relative.split("/")
        if len(parts) - 1 > _MAX_DEPTH or any(not p or p.startswith(".") for p in parts[:-1]):
            continue  # too deep, or in a hidden directory (or an odd key like a//b)
        files_of.setdefault("/".join(parts[:-1]) or ".", []).append(parts[-1])
    runs: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    traced: list[str] = []
    trace_runs = _trace_runs()
    for name, files in files_of.items():
        directory = logdir if name == "." else storage.join(logdir, name)
        events = sorted(f for f in files if is_event_file(f))
        if not events:
            found = next(
                (r for r in (run_of(name, sorted(files)) for run_of in trace_runs) if r is not None), None
            )
            if found is not None:
                traced.append(found)
            continue
        runs[name] = [storage.join(directory, f) for f in events]
        for f, path in zip(events, runs[name], strict=True):
            sizes[path] = tree[f if name == "." else f"{name}/{f}"]
    for name in traced:
        runs.setdefault(name, [])
    return Discovered(dict(sorted(runs.items())), sizes, tree)


def _walk(logdir: str) -> dict[str, list[str]]:
    """Discovery of a local logdir, directory by directory."""
    runs: dict[str, list[str]] = {}
    trace_runs = _trace_runs()
    stack: list[tuple[str, str, int]] = [(logdir, ".", 0)]
    while stack:
        path, name, depth = stack.pop()
        try:
            entries = _entries(path)
        except OSError:
            if depth == 0 and storage.is_file(path):
                return {".": [path]}
            continue
        prefix = os.path.join(path, "")  # as storage.join(path, e) gives, one concatenation an entry
        files = [prefix + e for e, is_dir in entries if not is_dir and is_event_file(e)]
        if files:
            runs[name] = files
        else:
            plain = [e for e, is_dir in entries if not is_dir]
            traced = next((r for r in (run_of(name, plain) for run_of in trace_runs) if r is not None), None)
            if traced is not None:
                runs.setdefault(traced, [])
        if depth >= _MAX_DEPTH:
            continue
        for entry, is_dir in reversed(entries):
            if is_dir and not entry.startswith("."):
                child = entry if name == "." else f"{name}/{entry}"
                stack.append((prefix + entry, child, depth + 1))
    return dict(sorted(runs.items()))


def _entries(path: str) -> list[tuple[str, bool]]:
    """``(name, is_dir)`` of each entry of the local directory ``path``, sorted by name (what
    :func:`tbkit.record.storage.listdir` gives, without its per-call dispatch: a walk of 2,000
    run directories lists each)."""
    with os.scandir(path[len("file://") :] if path.startswith("file://") else path) as it:
        return sorted([(e.name, e.is_dir()) for e in it])


def checked_logdir(logdir: object) -> str:
    """``logdir`` as a string, once it names an existing directory, event file or URL.

    Raises:
        InvalidArgumentError: ``logdir`` is not a path (``None``, a number ...) or is empty.
        PathNotFoundError: Nothing exists at ``logdir``.
        DataError: ``logdir`` is a file that is not an event file.
        StorageError: ``logdir`` cannot be looked at (permissions, network ...).
    """
    if isinstance(logdir, os.PathLike):
        logdir = os.fspath(logdir)
    if isinstance(logdir, bytes):
        logdir = os.fsdecode(logdir)
    if not isinstance(logdir, str):
        raise InvalidArgumentError(
            f"logdir must be a path or an fsspec URL (str or os.PathLike), "
            f"got {logdir!r} of type {type(logdir).__name__}"
        )
    if not logdir:
        raise InvalidArgumentError("logdir is empty (''): give a directory, an event file or an fsspec URL")
    try:
        found = storage.exists(logdir)
    except ValueError as exc:  # fsspec: an unknown protocol
        raise InvalidArgumentError(f"logdir {logdir!r} cannot be opened: {exc}") from exc
    except OSError as exc:
        raise StorageError(f"cannot look at log directory ({exc})", path=logdir) from exc
    if not found:
        raise PathNotFoundError("no such log directory or event file", path=logdir)
    if storage.is_file(logdir) and not looks_like_event_file(logdir):
        raise DataError(
            "not an event file: its name has no 'tfevents' and it does not start with a TFRecord",
            path=logdir,
        )
    return logdir


def listed_at_open(logdir: object) -> Discovered | None:
    """An object-store logdir's discovery, when it found runs: the logdir is then known to
    exist without :func:`checked_logdir`'s HEAD and LIST requests. None otherwise (a local
    path, nothing found, a file, a failure: :func:`checked_logdir` says what is wrong)."""
    if not isinstance(logdir, str) or not logdir or storage.is_local(logdir):
        return None
    try:
        found = discover(logdir)
    except (TbkitError, OSError, ValueError):
        return None
    return found if found.runs and found.runs != {".": [logdir]} else None
