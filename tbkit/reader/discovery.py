"""Finding the runs of a logdir: every directory that directly holds event files.

A run is named by its path relative to the logdir, with ``/`` separators (``.`` for
the logdir itself). Event files are files whose name contains ``tfevents``; a run's
files are listed in name order. Hidden directories (name starting with ``.``) are
skipped. All access goes through :mod:`tbkit.record.storage`.

A logdir that is itself a file is one run named ``.`` holding that file (``tbkit.read`` of
one event file); :func:`looks_like_event_file` tells whether a file is one.

A directory holding profiler traces but no event files is a run too (with no event
files), as the profile viewers show it: ``torch.profiler.tensorboard_trace_handler``'s
``<run>/<worker>.<timestamp>.pt.trace.json[.gz]`` and
``<run>/plugins/profile/<session>/<worker>.trace.json[.gz]`` (see
:mod:`tbkit.plugins.profile.decode`).
"""

from __future__ import annotations

import re

from tbkit.errors import StorageError
from tbkit.record import storage
from tbkit.record.framing import HEADER_SIZE, Status, parse_record

__all__ = ["discover_runs", "is_event_file", "looks_like_event_file"]

_MAX_DEPTH = 64
_TORCH_TRACE = re.compile(r"\.\d+\.pt\.trace\.json(\.gz)?$")
_PLUGIN_TRACE = re.compile(r"\.trace\.json(\.gz)?$")


def _trace_run(name: str, files: list[str]) -> str | None:
    """The run a directory's trace files belong to (``name`` is the directory's run name)."""
    parts = name.split("/")
    if len(parts) >= 3 and parts[-3:-1] == ["plugins", "profile"] and any(map(_PLUGIN_TRACE.search, files)):
        return "/".join(parts[:-3]) or "."
    if any(map(_TORCH_TRACE.search, files)):
        return name
    return None


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


def discover_runs(logdir: str) -> dict[str, list[str]]:
    """``{run name: [event file paths, in name order]}`` for every run under ``logdir``.

    A ``logdir`` that is a file gives ``{".": [logdir]}``, whatever its name.

    Example:
        >>> discover_runs("memory://no/such/dir")
        {}
    """
    runs: dict[str, list[str]] = {}
    stack: list[tuple[str, str, int]] = [(logdir, ".", 0)]
    while stack:
        path, name, depth = stack.pop()
        try:
            entries = storage.listdir(path)
        except (StorageError, FileNotFoundError):
            if depth == 0 and storage.is_file(path):
                return {".": [path]}
            continue
        files = [storage.join(path, e) for e, is_dir in entries if not is_dir and is_event_file(e)]
        if files:
            runs[name] = files
        else:
            traced = _trace_run(name, [e for e, is_dir in entries if not is_dir])
            if traced is not None:
                runs.setdefault(traced, [])
        if depth >= _MAX_DEPTH:
            continue
        for entry, is_dir in reversed(entries):
            if is_dir and not entry.startswith("."):
                child = entry if name == "." else f"{name}/{entry}"
                stack.append((storage.join(path, entry), child, depth + 1))
    return dict(sorted(runs.items()))
