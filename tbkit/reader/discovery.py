"""Finding the runs of a logdir: every directory that directly holds event files.

A run is named by its path relative to the logdir, with ``/`` separators (``.`` for
the logdir itself). Event files are files whose name contains ``tfevents``; a run's
files are listed in name order. Hidden directories (name starting with ``.``) are
skipped. All access goes through :mod:`tbkit.record.storage`.
"""

from __future__ import annotations

from tbkit.errors import StorageError
from tbkit.record import storage

__all__ = ["discover_runs", "is_event_file"]

_MAX_DEPTH = 64


def is_event_file(name: str) -> bool:
    """True for file names TensorBoard reads as event files (containing ``tfevents``)."""
    return "tfevents" in name


def discover_runs(logdir: str) -> dict[str, list[str]]:
    """``{run name: [event file paths, in name order]}`` for every run under ``logdir``.

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
            continue
        files = [storage.join(path, e) for e, is_dir in entries if not is_dir and is_event_file(e)]
        if files:
            runs[name] = files
        if depth >= _MAX_DEPTH:
            continue
        for entry, is_dir in reversed(entries):
            if is_dir and not entry.startswith("."):
                child = entry if name == "." else f"{name}/{entry}"
                stack.append((storage.join(path, entry), child, depth + 1))
    return dict(sorted(runs.items()))
