"""``tbkit inspect``: a digest of every run and tag of a logdir, and the problems found.

What TensorBoard's ``--inspect`` shows (``event_file_inspector.py``: per kind, the number of
distinct steps, first/last/min/max step and the out-of-order steps; every ``SessionLog``
START and STOP), but per run *and tag*, with the reader's problems (corrupt records with
file and byte offset). The data are read as written: nothing is purged, so out-of-order
steps and restarts are visible; each ``SessionLog.START`` says how many points written
before it a reader drops (TensorBoard's ``purge_orphaned_data``).

Example:
    >>> digest = inspect_logdir("runs")  # doctest: +SKIP
    >>> print(format_text(digest))  # doctest: +SKIP
"""

from __future__ import annotations

import datetime
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tbkit._progress import Progress, format_amount
from tbkit.cli._common import quiet_reader, search_regex
from tbkit.errors import NotFoundError, StorageError
from tbkit.proto import event_pb2
from tbkit.reader.discovery import discover_runs
from tbkit.reader.events import FileState, RunData
from tbkit.reader.loader import load_file
from tbkit.reader.names import name_filter
from tbkit.record import storage

__all__ = ["format_json", "format_text", "inspect_logdir", "kinds_digest"]

SHOWN_OUT_OF_ORDER = 5  # pairs printed per tag in the text report
SHOWN_TAGS = 8  # tag names printed per kind in the by-kind summary
KEPT_OUT_OF_ORDER = 1000  # pairs kept per tag in the JSON report
_STATUS = {
    event_pb2.SessionLog.START: "START",
    event_pb2.SessionLog.STOP: "STOP",
    event_pb2.SessionLog.CHECKPOINT: "CHECKPOINT",
}


@dataclass
class _InspectedRun(RunData):
    """A run read without purging that also remembers its ``SessionLog`` events."""

    session_logs: list[dict[str, Any]] = field(default_factory=list)

    def apply_event(self, event: event_pb2.Event, state: FileState, at: int | None = None) -> None:
        if event.WhichOneof("what") == "session_log":
            status = event.session_log.status
            entry: dict[str, Any] = {
                "status": _STATUS.get(status, "UNKNOWN"),
                "step": int(event.step),
                "wall_time": float(event.wall_time),
            }
            if status == event_pb2.SessionLog.START:
                step = event.step
                entry["orphaned"] = int(
                    sum(np.count_nonzero(s.columns()[0] >= step) for s in self.series.values())
                )
            self.session_logs.append(entry)
        super().apply_event(event, state, at)


def _out_of_order(steps: np.ndarray) -> tuple[list[list[int]], int]:
    """(previous, next) pairs where the step went down, in written order (at most KEPT), and their count."""
    if len(steps) < 2:
        return [], 0
    down = np.flatnonzero(steps[1:] < steps[:-1])
    pairs = [[int(steps[i]), int(steps[i + 1])] for i in down[:KEPT_OUT_OF_ORDER].tolist()]
    return pairs, len(down)


def _tag_digest(tag: str, series: Any) -> dict[str, Any]:
    steps = series.columns()[0]
    pairs, count = _out_of_order(steps)
    digest: dict[str, Any] = {
        "tag": tag,
        "plugin": series.meta.plugin_name,
        "data_class": series.meta.data_class.value,
        "count": len(steps),
        "distinct_steps": len(np.unique(steps)),
        "first_step": int(steps[0]) if len(steps) else None,
        "last_step": int(steps[-1]) if len(steps) else None,
        "min_step": int(steps.min()) if len(steps) else None,
        "max_step": int(steps.max()) if len(steps) else None,
        "out_of_order": pairs,
        "out_of_order_count": count,
    }
    if series.refused:
        digest["refused"] = True
    return digest


def inspect_logdir(
    logdir: str, *, tag: str | None = None, runs: str | None = None, progress: bool | None = None
) -> dict[str, Any]:
    """The digest of ``logdir``: runs, their files, tags, session logs, and every problem.

    Args:
        logdir: Local path or fsspec URL of a log directory, or of one event file (a run
            named ``.``).
        tag: Only this tag (exact name), as TensorBoard's ``--tag``.
        runs: Only runs where this regex matches (anywhere in the name).
        progress: Draw a progress bar on stderr (default: when stderr is a terminal).

    Raises:
        NotFoundError: No such local directory, or no event files in it.
    """
    if storage.is_local(logdir) and not storage.exists(logdir):
        raise NotFoundError(f"no such log directory: {logdir}")
    found = discover_runs(logdir)
    keep = name_filter(search_regex(runs, "runs"))
    if keep is not None:
        found = {name: paths for name, paths in found.items() if keep(name)}
    if not found:
        raise NotFoundError(f"no event files under {logdir}")
    sizes = {}
    for paths in found.values():
        for path in paths:
            try:
                sizes[path] = storage.size(path)
            except StorageError:
                sizes[path] = 0
    tag_filter = None if tag is None else (lambda t: t == tag)
    out_runs, problems = [], []
    with quiet_reader(), Progress(sum(sizes.values()), "reading", unit="B", enabled=progress) as bar:
        for name, paths in found.items():
            run = _InspectedRun(name, purge_orphaned_data=False, tag_filter=tag_filter)
            for path in paths:
                load_file(run, path)
                bar.advance(sizes[path])
            problems.extend(run.problems)
            problems.extend(state.tail for state in run.files.values() if state.tail is not None)
            tags = [_tag_digest(t, s) for t, s in sorted(run.series.items()) if len(s) or s.refused]
            out_runs.append(
                {
                    "run": name,
                    "files": [{"path": p, "bytes": sizes[p]} for p in paths],
                    "start_time": run.start_time,
                    "tags": tags,
                    "session_log": run.session_logs,
                }
            )
    return {
        "logdir": logdir,
        "tag": tag,
        "runs": out_runs,
        "problems": [
            {"run": p.run, "path": p.path, "offset": p.offset, "reason": p.reason} for p in problems
        ],
    }


def format_json(digest: dict[str, Any]) -> str:
    """The digest as indented JSON (for machines)."""
    return json.dumps(digest, indent=2, ensure_ascii=False, allow_nan=False)


def _width(text: str) -> int:
    """Terminal columns of ``text``: wide (CJK, emoji) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _table(header: list[str], rows: list[list[str]], right: set[int], indent: str = "  ") -> list[str]:
    widths = [max(_width(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = []
        for i, (cell, w) in enumerate(zip(cells, widths, strict=True)):
            pad = " " * (w - _width(cell))
            parts.append(pad + cell if i in right else cell + pad)
        return (indent + "  ".join(parts)).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _when(wall: float | None) -> str:
    if wall is None or not np.isfinite(wall):
        return "?"
    try:
        when = datetime.datetime.fromtimestamp(wall, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "?"
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


def _order_cell(t: dict[str, Any]) -> str:
    if not t["out_of_order_count"]:
        return "-"
    shown = ", ".join(f"{a}→{b}" for a, b in t["out_of_order"][:SHOWN_OUT_OF_ORDER])
    more = t["out_of_order_count"] - min(SHOWN_OUT_OF_ORDER, len(t["out_of_order"]))
    return shown + (f" (+{more} more)" if more > 0 else "")


def _relative(path: str, logdir: str) -> str:
    base = logdir.rstrip("/\\")
    if path.startswith(base) and path[len(base) : len(base) + 1] in ("/", "\\"):
        return path[len(base) + 1 :]
    return path


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


def kinds_digest(run: dict[str, Any]) -> list[dict[str, Any]]:
    """One run's tags aggregated per kind (plugin), as TensorBoard's ``--inspect`` sums "over all tags".

    Args:
        run: One entry of the digest's ``runs``.

    Returns:
        Per kind, sorted by name: ``kind``, ``tags`` (names), ``count`` (points), ``min_step``,
        ``max_step`` and ``out_of_order_count`` (summed over its tags).

    Example:
        >>> tag = {"tag": "loss", "plugin": "scalars", "count": 3, "min_step": 0, "max_step": 2,
        ...        "out_of_order_count": 0}
        >>> kinds_digest({"tags": [tag]})[0]["tags"]
        ['loss']
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for t in run["tags"]:
        groups.setdefault(t["plugin"] or "(none)", []).append(t)
    out = []
    for kind, tags in sorted(groups.items()):
        lows = [t["min_step"] for t in tags if t["min_step"] is not None]
        highs = [t["max_step"] for t in tags if t["max_step"] is not None]
        out.append(
            {
                "kind": kind,
                "tags": [t["tag"] for t in tags],
                "count": sum(t["count"] for t in tags),
                "min_step": min(lows) if lows else None,
                "max_step": max(highs) if highs else None,
                "out_of_order_count": sum(t["out_of_order_count"] for t in tags),
            }
        )
    return out


def _kinds_lines(run: dict[str, Any]) -> list[str]:
    rows = []
    for k in kinds_digest(run):
        names = ", ".join(k["tags"][:SHOWN_TAGS])
        if len(k["tags"]) > SHOWN_TAGS:
            names += f" (+{len(k['tags']) - SHOWN_TAGS} more)"
        counts = (len(k["tags"]), k["count"], k["out_of_order_count"])
        rows.append([k["kind"], *map(str, counts), _num(k["min_step"]), _num(k["max_step"]), names])
    header = ["kind", "tags", "count", "out of order", "min", "max", "tag names"]
    return ["  by kind:", *_table(header, rows, right={1, 2, 3, 4, 5}, indent="    ")]


def _one_file(digest: dict[str, Any]) -> bool:
    """Whether the digest is of one event file given as the logdir."""
    runs = digest["runs"]
    return len(runs) == 1 and [f["path"] for f in runs[0]["files"]] == [digest["logdir"]]


def format_text(digest: dict[str, Any], *, by_kind: bool = False) -> str:
    """The digest as an aligned, human-readable report.

    Args:
        digest: What :func:`inspect_logdir` returns.
        by_kind: After each run's tags, also their summary per kind (:func:`kinds_digest`),
            as ``tensorboard --inspect`` lists tags by kind (``tbkit serve --inspect``).
    """
    runs = digest["runs"]
    files = sum(len(r["files"]) for r in runs)
    size = sum(f["bytes"] for r in runs for f in r["files"])
    what = f" (tag {digest['tag']!r})" if digest.get("tag") is not None else ""
    where = "Event file" if _one_file(digest) else "Log directory"
    lines = [
        f"{where} {digest['logdir']}{what}: {len(runs)} run(s), {files} event file(s), "
        f"{format_amount(size, 'B')}",
    ]
    for run in runs:
        lines.append("")
        size = format_amount(sum(f["bytes"] for f in run["files"]), "B")
        started = _when(run["start_time"])
        lines.append(f"Run {run['run']}  ({len(run['files'])} event file(s), {size}, started {started})")
        if run["tags"]:
            header = ["tag", "kind", "class", "count", "steps", "first", "last", "min", "max", "out of order"]
            rows = [
                [
                    t["tag"],
                    (t["plugin"] or "(none)") + (" REFUSED" if t.get("refused") else ""),
                    t["data_class"],
                    str(t["count"]),
                    str(t["distinct_steps"]),
                    *(_num(t[k]) for k in ("first_step", "last_step", "min_step", "max_step")),
                    _order_cell(t),
                ]
                for t in run["tags"]
            ]
            lines.extend(_table(header, rows, right={3, 4, 5, 6, 7, 8}))
            if by_kind:
                lines.extend(_kinds_lines(run))
        else:
            lines.append("  (no data)")
        for entry in run["session_log"]:
            line = f"  session log {entry['status']} at step {entry['step']}"
            if entry.get("orphaned"):  # START only: STOP and CHECKPOINT drop nothing
                line += f" (a reader drops {entry['orphaned']} earlier point(s) with step >= {entry['step']})"
            lines.append(line)
    problems = digest["problems"]
    lines.append("")
    if problems:
        lines.append(f"Problems ({len(problems)}):")
        rows = [[_relative(p["path"], digest["logdir"]), _num(p["offset"]), p["reason"]] for p in problems]
        lines.extend(_table(["file", "offset", "reason"], rows, right={1}))
    else:
        lines.append("No problems found.")
    return "\n".join(lines) + "\n"
