"""One trace's timeline and its events' details, as the Profile dashboard shows them.

:func:`build_timeline` turns Chrome trace events (:func:`tbkit.plugins.profile.decode.load`)
into columns: one row per drawable event, sorted by track then start time.

* Drawn: complete events (``"ph": "X"``), ``B``/``E`` pairs of a thread joined into one
  event (an ``E`` closes the latest open ``B`` of its thread; a ``B`` never closed ends at
  the trace's end), and instants (``i``/``I``) as zero-duration events. Everything else
  (flows, counters, async events ...) is counted in ``skipped`` by phase.
* Tracks are threads, ``(pid, tid)``, named by the ``process_name`` / ``thread_name``
  metadata events (``"ph": "M"``) and ordered by their ``*_sort_index`` then by id.
* Depth and self time come from nesting by interval containment on the same track
  (:func:`tbkit.plugins.profile.decode.nest`): an event's self time is its duration minus
  the time of the events directly inside it.

:mod:`tbkit.plugins.profile.tables` sums a timeline up (operators, step times).

Example:
    >>> t = build_timeline([{"ph": "X", "name": "a", "ts": 5, "dur": 10, "pid": 1, "tid": 1}])
    >>> t.ts.tolist(), t.dur.tolist(), t.names
    ([0.0], [10.0], ['a'])
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tbkit.plugins.profile.decode import nest

__all__ = ["Timeline", "Track", "build_timeline", "event_details"]

_INSTANT = ("i", "I")
_DRAWN = frozenset(("X", "B", "E", *_INSTANT))
_SORT_KEYS = {"process_sort_index": "process", "thread_sort_index": "thread"}
_NAME_KEYS = {"process_name": "process", "thread_name": "thread"}


@dataclass(frozen=True)
class Track:
    """One thread of a trace.

    Attributes:
        name: ``<process name> / <thread name>`` (ids where no metadata names them).
        pid: The process id as in the trace (an int or a string).
        tid: The thread id as in the trace.
        first: Index of the track's first event in the timeline's columns.
        count: Number of its events (they follow ``first``).
        depth: Number of nesting levels (1 when nothing nests).
    """

    name: str
    pid: Any
    tid: Any
    first: int
    count: int
    depth: int


@dataclass
class Timeline:
    """A trace's drawable events as columns (one entry per event, sorted by track, then start).

    Attributes:
        start_us: The trace's origin: the earliest timestamp of any event, in microseconds.
        span_us: From the origin to the latest end.
        tracks: The threads, in display order.
        names, categories: String tables the ``name`` and ``cat`` columns index.
        ts: Start, microseconds from ``start_us``.
        dur: Duration in microseconds (0 for instants).
        name, cat, depth, track: Indices / nesting level per event.
        self_us: Self time per event.
        instant: True for instants.
        source: Per event, the indices of its trace events in the loaded list (``B`` and
            ``E`` for a joined pair, ``-1`` for an ``E`` never seen).
        events_total: Every event of the file, metadata included.
        skipped: Events not drawn, by phase.
        unclosed: ``B`` events without their ``E`` (drawn to the trace's end).
    """

    start_us: float
    span_us: float
    tracks: list[Track]
    names: list[str]
    categories: list[str]
    ts: np.ndarray
    dur: np.ndarray
    name: np.ndarray
    cat: np.ndarray
    depth: np.ndarray
    track: np.ndarray
    self_us: np.ndarray
    instant: np.ndarray
    source: np.ndarray
    events_total: int
    skipped: dict[str, int] = field(default_factory=dict)
    unclosed: int = 0

    def __len__(self) -> int:
        return len(self.ts)


def _number(value: Any) -> float | None:
    """A finite float, or None (``ts`` and ``dur`` are numbers, sometimes strings)."""
    kind = type(value)
    if kind is float:
        return value if value - value == 0.0 else None  # NaN and infinities fail
    if kind is int:
        return float(value)
    if kind is not str:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number - number == 0.0 else None


def _id(value: Any) -> Any:
    """A pid/tid as a hashable JSON value (ints stay ints, anything else becomes a string)."""
    kind = type(value)
    if kind is int or kind is str:
        return value
    if value is None:
        return ""
    if kind is float and value.is_integer():
        return int(value)
    return str(value)


def _id_order(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) else (1, str(value))


class _Metadata:
    """Names and sort indices of processes and threads from ``"ph": "M"`` events."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, Any], str] = {}
        self.sort: dict[tuple[str, Any], float] = {}

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("name")
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        pid, tid = _id(event.get("pid")), _id(event.get("tid"))
        if kind in _NAME_KEYS and isinstance(args.get("name"), str):
            key = pid if _NAME_KEYS[kind] == "process" else (pid, tid)
            self.names[(_NAME_KEYS[kind], key)] = args["name"]
        elif kind in _SORT_KEYS and _number(args.get("sort_index")) is not None:
            key = pid if _SORT_KEYS[kind] == "process" else (pid, tid)
            self.sort[(_SORT_KEYS[kind], key)] = float(args["sort_index"])

    def track_name(self, pid: Any, tid: Any) -> str:
        if pid == "" and tid == "":
            return "(global)"
        process = self.names.get(("process", pid), str(pid))
        thread = self.names.get(("thread", (pid, tid)), str(tid))
        return f"{process} / {thread}"

    def order(self, key: tuple[Any, Any]) -> tuple[Any, ...]:
        pid, tid = key
        inf = float("inf")
        return (
            self.sort.get(("process", pid), inf),
            _id_order(pid),
            self.sort.get(("thread", (pid, tid)), inf),
            _id_order(tid),
        )


def build_timeline(events: list[dict[str, Any]]) -> Timeline:
    """The drawable events of a trace, as columns (see the module docstring).

    Args:
        events: Trace events, as :func:`tbkit.plugins.profile.decode.load` returns them.
    """
    rows = _Rows()
    meta = _Metadata()
    open_b: dict[int, list[tuple[float, int]]] = {}
    skipped: dict[str, int] = {}
    for i, event in enumerate(events):
        ph = event.get("ph")
        if ph == "M":
            meta.add(event)
            continue
        ts = _number(event.get("ts"))
        if ts is None or ph not in _DRAWN:
            skipped[str(ph)] = skipped.get(str(ph), 0) + 1
            continue
        thread = rows.thread(event.get("pid"), event.get("tid"))
        if ph == "X":
            dur = _number(event.get("dur")) or 0.0
            rows.add(thread, ts, dur if dur > 0.0 else 0.0, event, i, -1)
        elif ph == "B":
            open_b.setdefault(thread, []).append((ts, i))
        elif ph == "E":
            stack = open_b.get(thread)
            if stack:
                begin, src = stack.pop()
                rows.add(thread, begin, max(ts - begin, 0.0), events[src], src, i)
            else:
                skipped["E"] = skipped.get("E", 0) + 1
        else:
            rows.add(thread, ts, 0.0, event, i, -1)
    unclosed = 0
    for thread, stack in open_b.items():  # drawn to the trace's end (set below)
        for begin, src in stack:
            rows.add(thread, begin, -1.0, events[src], src, -1)
            unclosed += 1
    return _columns(rows, meta, len(events), skipped, unclosed)


class _Rows:
    """The drawable events while a trace is read, column by column (threads numbered as met)."""

    def __init__(self) -> None:
        self.threads: dict[Any, int] = {}
        self.thread_ids: list[tuple[Any, Any]] = []
        self.names: dict[str, int] = {}
        self.cats: dict[str, int] = {}
        self.track: list[int] = []
        self.ts: list[float] = []
        self.dur: list[float] = []
        self.name: list[int] = []
        self.cat: list[int] = []
        self.instant: list[bool] = []
        self.source: list[int] = []
        self.end: list[int] = []

    def thread(self, pid: Any, tid: Any) -> int:
        """The number of thread ``(pid, tid)`` (ids as met; normalized by :func:`_id`)."""
        with contextlib.suppress(KeyError, TypeError):  # TypeError: an unhashable id
            return self.threads[(pid, tid)]
        key = (_id(pid), _id(tid))
        number = self.threads.get(key)
        if number is None:
            number = self.threads[key] = len(self.thread_ids)
            self.thread_ids.append(key)
        with contextlib.suppress(TypeError):
            self.threads[(pid, tid)] = number
        return number

    def add(self, thread: int, ts: float, dur: float, event: dict[str, Any], src: int, end: int) -> None:
        name = event.get("name", "")
        cat = event.get("cat", "")
        name = name if type(name) is str else str(name)
        cat = cat if type(cat) is str else str(cat)
        names, cats = self.names, self.cats
        self.track.append(thread)
        self.ts.append(ts)
        self.dur.append(dur)
        self.name.append(names[name] if name in names else names.setdefault(name, len(names)))
        self.cat.append(cats[cat] if cat in cats else cats.setdefault(cat, len(cats)))
        self.instant.append(event.get("ph") in _INSTANT)
        self.source.append(src)
        self.end.append(end)


def _columns(rows: _Rows, meta: _Metadata, total: int, skipped: dict[str, int], unclosed: int) -> Timeline:
    n = len(rows.ts)
    ts = np.asarray(rows.ts, np.float64).reshape(n)
    dur = np.asarray(rows.dur, np.float64).reshape(n)
    lo = float(ts.min()) if n else 0.0
    hi = float((ts + np.maximum(dur, 0.0)).max()) if n else 0.0
    open_ended = dur < 0
    dur[open_ended] = hi - ts[open_ended]
    ordered = sorted(range(len(rows.thread_ids)), key=lambda k: meta.order(rows.thread_ids[k]))
    rank = np.empty(len(ordered), np.int32)
    rank[ordered] = np.arange(len(ordered), dtype=np.int32)
    track = rank[np.asarray(rows.track, np.int64).reshape(n)] if n else np.zeros(0, np.int32)
    source = np.stack(
        [np.asarray(rows.source, np.int64).reshape(n), np.asarray(rows.end, np.int64).reshape(n)], 1
    )
    order = np.lexsort((-dur, ts, track))
    ts = ts[order] - lo
    dur, track, source = dur[order], track[order], source[order]
    name = np.asarray(rows.name, np.int32).reshape(n)[order]
    cat = np.asarray(rows.cat, np.int32).reshape(n)[order]
    instant = np.asarray(rows.instant, bool).reshape(n)[order]
    depth_list, self_list = nest(
        list(zip(track.tolist(), ts.tolist(), dur.tolist(), range(n), strict=True)), n
    )
    depth = np.asarray(depth_list, np.int32).reshape(n)
    firsts = np.searchsorted(track, np.arange(len(ordered) + 1))
    tracks = []
    for k, thread in enumerate(ordered):
        pid, tid = rows.thread_ids[thread]
        a, b = int(firsts[k]), int(firsts[k + 1])
        levels = int(depth[a:b].max()) + 1 if b > a else 1
        tracks.append(Track(meta.track_name(pid, tid), pid, tid, a, b - a, levels))
    return Timeline(
        start_us=lo,
        span_us=hi - lo,
        tracks=tracks,
        names=list(rows.names),
        categories=list(rows.cats),
        ts=ts,
        dur=dur,
        name=name,
        cat=cat,
        depth=depth,
        track=track,
        self_us=np.asarray(self_list, np.float64).reshape(n),
        instant=instant,
        source=source,
        events_total=total,
        skipped=skipped,
        unclosed=unclosed,
    )


def event_details(timeline: Timeline, events: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """What the dashboard shows for the selected event ``index`` (a row of ``timeline``).

    The ``args`` of a joined ``B``/``E`` pair are merged (the ``E``'s win on a clash).
    """
    begin, end = (int(x) for x in timeline.source[index])
    event = events[begin]
    args: dict[str, Any] = {}
    for src in (begin, end):
        if src >= 0 and isinstance(events[src].get("args"), dict):
            args.update(events[src]["args"])
    track = timeline.tracks[int(timeline.track[index])]
    ts = float(timeline.ts[index])
    return {
        "index": index,
        "name": timeline.names[int(timeline.name[index])],
        "category": timeline.categories[int(timeline.cat[index])],
        "phase": str(event.get("ph")),
        "ts_us": ts,
        "start_us": timeline.start_us + ts,
        "dur_us": float(timeline.dur[index]),
        "self_us": float(timeline.self_us[index]),
        "depth": int(timeline.depth[index]),
        "track": int(timeline.track[index]),
        "track_name": track.name,
        "pid": track.pid,
        "tid": track.tid,
        "args": args,
    }
