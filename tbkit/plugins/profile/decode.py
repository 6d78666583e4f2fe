"""Reading profiler traces (Chrome trace-event JSON, plain or gzip'ed) found in a logdir.

A file-based plugin, not events. Two layouts are found (:func:`find_traces`):

* ``<run>/plugins/profile/<session>/<worker>[.pt].trace.json[.gz]``: TensorFlow's profiler,
  the TensorBoard profile plugin and :mod:`tbkit.profiler`;
* ``<run>/<worker>.<timestamp>.pt.trace.json[.gz]``: ``torch.profiler.tensorboard_trace_handler``
  (torch-tb-profiler's layout); the timestamp names the session.

:func:`summarize` turns one trace into its event count, time span and a table of ops by
self time: for complete events (``"ph": "X"``) of each thread, an event's self time is its
duration minus the time covered by the events nested directly in it.

Example:
    >>> summarize(b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 0, "dur": 10}]}')["events"]
    1
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tbkit.errors import StorageError
from tbkit.record import storage

__all__ = [
    "DATA_CLASS",
    "FILE_BASED",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "decode",
    "find_traces",
    "load",
    "nest",
    "plugin_files",
    "run_of",
    "summarize",
    "supported",
    "trace_name",
]

PLUGIN_NAME = "profile"
DATA_CLASS = "tensor"
LEGACY_FIELD = None
FILE_BASED = True
PROFILE_DIR = ("plugins", "profile")
_MAX_DEPTH = 32
_PLUGIN_TRACE = re.compile(r"^(?P<worker>.+?)(\.pt)?\.trace\.json(\.gz)?$")
_TORCH_TRACE = re.compile(r"^(?P<worker>.+)\.(?P<session>\d+)\.pt\.trace\.json(\.gz)?$")
_ANY_TORCH_TRACE = re.compile(r"\.\d+\.pt\.trace\.json(\.gz)?$")
_ANY_PLUGIN_TRACE = re.compile(r"\.trace\.json(\.gz)?$")


def supported(content: bytes) -> bool:
    """Traces are not summaries; any payload is accepted."""
    return True


def decode(array: np.ndarray) -> np.ndarray:
    """Traces are not summaries; a tensor is kept as it is."""
    return array


def _run_name(parts: list[str]) -> str:
    return "/".join(parts) if parts else "."


def run_of(directory: str, files: list[str]) -> str | None:
    """The run whose traces the directory ``directory`` (a run name) holds, or None.

    Asked by run discovery for each directory without event files (see
    :mod:`tbkit.plugins.registry`): a session directory ``<run>/plugins/profile/<session>``
    with trace files belongs to ``<run>``; a directory with torch's ``*.<n>.pt.trace.json``
    files is a run of its own.

    Example:
        >>> run_of("train/plugins/profile/2024_01_01", ["host.trace.json.gz"]), run_of("x", ["a.txt"])
        ('train', None)
    """
    parts = directory.split("/")
    in_session = len(parts) >= 3 and parts[-3:-1] == list(PROFILE_DIR)
    if in_session and any(map(_ANY_PLUGIN_TRACE.search, files)):
        return "/".join(parts[:-3]) or "."
    if any(map(_ANY_TORCH_TRACE.search, files)):
        return directory
    return None


def plugin_files(
    logdir: str,
    runs: list[str],
    run_dir: Callable[[str], str],
    wants_run: Callable[[str], bool],
    *,
    tree: Mapping[str, int] | None = None,
) -> list[tuple[str, str]]:
    """``(run, path below the run directory)`` of every trace file under ``logdir`` of a wanted run.

    The file-based plugins' one listing (see :mod:`tbkit.plugins.registry`): traces are
    found by walking the logdir (:func:`find_traces`), or in ``tree`` (the logdir's whole
    listing, ``{path below logdir: size}``, on object stores: no request), kept when
    ``wants_run(run)``.

    Example:
        >>> plugin_files("memory://none", ["."], lambda run: "memory://none", lambda run: True)
        []
    """
    return [(t["run"], t["relative"]) for t in find_traces(logdir, tree=tree) if wants_run(t["run"])]


def find_traces(logdir: str, *, tree: Mapping[str, int] | None = None) -> list[dict[str, str]]:
    """Every trace file under ``logdir``: ``{"run", "session", "worker", "path", "relative"}``.

    ``relative`` is the path below the run directory (``/`` separated). Hidden directories
    are skipped; the result is sorted by run, session, worker. With ``tree`` (every file
    below ``logdir``, as :func:`tbkit.record.storage.list_tree` lists it) nothing is asked of
    the storage: the same files are found in the listing.
    """
    found: list[dict[str, str]] = []
    if tree is not None:
        for key in tree:
            parts = key.split("/")
            directories = parts[:-1]
            if len(directories) > _MAX_DEPTH or any(not d or d.startswith(".") for d in directories):
                continue  # as the walk: no hidden directory entered, none deeper than it goes
            _trace(found, directories, parts[-1], storage.join(logdir, *parts))
        return sorted(found, key=lambda t: (t["run"], t["session"], t["worker"], t["relative"]))
    stack: list[tuple[str, list[str]]] = [(logdir, [])]
    while stack:
        path, parts = stack.pop()
        try:
            entries = storage.listdir(path)
        except (StorageError, FileNotFoundError):
            continue
        for name, is_dir in entries:
            if is_dir:
                if not name.startswith(".") and len(parts) < _MAX_DEPTH:
                    stack.append((storage.join(path, name), [*parts, name]))
                continue
            _trace(found, parts, name, storage.join(path, name))
    return sorted(found, key=lambda t: (t["run"], t["session"], t["worker"], t["relative"]))


def _trace(found: list[dict[str, str]], parts: list[str], name: str, full: str) -> None:
    """Add the file ``name`` of the directory ``parts`` (below the logdir) to ``found`` if it is a trace."""
    torch = _TORCH_TRACE.match(name)
    plugin = _PLUGIN_TRACE.match(name)
    if plugin and len(parts) >= 3 and tuple(parts[-3:-1]) == PROFILE_DIR:
        relative = "/".join([*parts[-3:], name])
        found.append({"run": _run_name(parts[:-3]), "session": parts[-1], "relative": relative,
                      "worker": plugin.group("worker"), "path": full})  # fmt: skip
    elif torch:
        found.append({"run": _run_name(parts), "session": torch.group("session"),
                      "worker": torch.group("worker"), "path": full, "relative": name})  # fmt: skip


def trace_name(relative: str) -> tuple[str, str] | None:
    """``(session, worker)`` of a trace file from its path below the run directory.

    ``relative`` is a path :func:`find_traces` gives (``plugins/profile/<session>/<file>``
    or a torch-layout file name); None for any other path.

    Example:
        >>> trace_name("plugins/profile/demo/worker0.pt.trace.json.gz")
        ('demo', 'worker0')
    """
    parts = relative.split("/")
    plugin = _PLUGIN_TRACE.match(parts[-1])
    if len(parts) == 4 and tuple(parts[:2]) == PROFILE_DIR and plugin:
        return parts[2], plugin.group("worker")
    torch = _TORCH_TRACE.match(parts[-1])
    if len(parts) == 1 and torch:
        return torch.group("session"), torch.group("worker")
    return None


def load(data: bytes) -> list[dict[str, Any]]:
    """The trace events of a trace file's bytes (gzip'ed or not; an object or a bare list).

    Raises:
        ValueError: Not trace-event JSON.
    """
    try:
        text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        value = json.loads(text)
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"not trace-event JSON: {exc}") from exc
    events = value.get("traceEvents") if isinstance(value, dict) else value
    if not isinstance(events, list):
        raise ValueError("not trace-event JSON: no 'traceEvents' list")
    return [e for e in events if isinstance(e, dict)]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def nest(complete: list[tuple[Any, float, float, int]], n: int) -> tuple[list[int], list[float]]:
    """Nesting of timed events on their threads, by interval containment.

    Args:
        complete: ``(thread, ts, dur, index)`` per event, ``index`` in ``range(n)``.
        n: The number of events.

    Returns:
        Per index: the depth (0 for an event inside no other of its thread) and the self
        time (the duration minus the time of the events directly inside it, at least 0).
    """
    self_time = [0.0] * n
    depth = [0] * n
    by_thread: dict[Any, list[tuple[float, float, int]]] = {}
    for thread, ts, dur, i in complete:
        by_thread.setdefault(thread, []).append((ts, dur, i))
        self_time[i] = dur
    for items in by_thread.values():
        items.sort(key=lambda x: (x[0], -x[1]))
        stack: list[tuple[float, int]] = []  # (end, index)
        for ts, dur, i in items:
            while stack and stack[-1][0] <= ts:
                stack.pop()
            end = ts + dur
            if stack:
                parent_end, parent = stack[-1]
                self_time[parent] -= min(end, parent_end) - ts
            depth[i] = len(stack)
            stack.append((end, i))
    return depth, [max(t, 0.0) for t in self_time]


def summarize(data: bytes, *, top: int | None = 20) -> dict[str, Any]:
    """Statistics of one trace file's bytes.

    Returns:
        ``events`` (count), ``start_us`` and ``span_us`` (from the first event's start to
        the last one's end, in the trace's microseconds; NaN without timed events) and
        ``top_ops``: rows ``{name, category, count, total_us, self_us}`` of complete events,
        by self time (largest first), the ``top`` first (None: all).

    Raises:
        ValueError: Not trace-event JSON.
    """
    events = load(data)
    starts, ends = [], []
    complete = []
    for event in events:
        ts = _number(event.get("ts"))
        if ts is None:
            continue
        dur = _number(event.get("dur")) if event.get("ph") == "X" else None
        starts.append(ts)
        ends.append(ts + (dur or 0.0))
        if dur is not None and dur >= 0:
            complete.append(((event.get("pid"), event.get("tid")), ts, dur, event))
    indexed = [(thread, ts, dur, i) for i, (thread, ts, dur, _) in enumerate(complete)]
    self_time = nest(indexed, len(complete))[1]
    ops: dict[tuple[str, str], dict[str, Any]] = {}
    for (_, _, dur, event), own in zip(complete, self_time, strict=True):
        key = (str(event.get("name", "")), str(event.get("cat", "")))
        row = ops.setdefault(
            key, {"name": key[0], "category": key[1], "count": 0, "total_us": 0.0, "self_us": 0.0}
        )
        row["count"] += 1
        row["total_us"] += dur
        row["self_us"] += own
    table = sorted(ops.values(), key=lambda r: (-r["self_us"], r["name"], r["category"]))
    start = min(starts) if starts else float("nan")
    span = max(ends) - start if starts else float("nan")
    return {
        "events": len(events),
        "start_us": start,
        "span_us": span,
        "top_ops": table[:top] if top else table,
    }
