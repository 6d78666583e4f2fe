"""The Profile dashboard's routes (``/data/plugin/profile/``).

A trace is named by ``run``, ``session`` and ``worker`` (see :func:`traces`); the file is
read through the provider (``list_plugin_files`` / ``read_plugin_file``) and parsed once:
the last few parsed traces are kept, keyed by the file's bytes, so the timeline, the
operator table, the step times and each selected event do not parse it again.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import DataError, InvalidArgumentError, NotFoundError
from tbkit.plugins import web
from tbkit.plugins.profile import analysis, tables
from tbkit.plugins.profile.decode import PLUGIN_NAME, load, trace_name

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("profile", "Profile", (PLUGIN_NAME,)),)
_CACHED = 4  # parsed traces kept
_DECIMALS = 3  # microseconds to nanoseconds in the timeline's columns

blueprint = Blueprint("profile", __name__)


@dataclass(frozen=True)
class _Parsed:
    events: list[dict[str, Any]]
    timeline: analysis.Timeline


class _Cache:
    """The last few parsed traces, by a digest of their bytes (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[bytes, _Parsed] = OrderedDict()
        self.lock = threading.Lock()
        self.parsing = threading.Lock()

    def get(self, data: bytes, path: str) -> _Parsed:
        key = hashlib.blake2b(data, digest_size=16).digest()
        with self.parsing:  # one parse at a time: the page asks for a trace's parts at once
            with self.lock:
                if key in self.items:
                    self.items.move_to_end(key)
                    return self.items[key]
            try:
                events = load(data)
            except ValueError as exc:
                raise DataError(str(exc), path=path) from None
            parsed = _Parsed(events, analysis.build_timeline(events))
            with self.lock:
                self.items[key] = parsed
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
            return parsed


_cache = _Cache(_CACHED)


def _listing(runs: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for run, files in web.provider().list_plugin_files(PLUGIN_NAME, runs=runs).items():
        for f in files:
            named = trace_name(f.path)
            if named is not None:
                session, worker = named
                out.setdefault(run, []).append(
                    {"session": session, "worker": worker, "path": f.path, "size": f.size}
                )
    for entries in out.values():
        entries.sort(key=lambda e: (e["session"], e["worker"], e["path"]))
    return out


def _trace() -> tuple[dict[str, Any], _Parsed]:
    """The trace the ``run``, ``session`` and ``worker`` parameters name, parsed."""
    args = web.params()
    run = web.str_param(args, "run")
    session = web.str_param(args, "session")
    worker = web.str_param(args, "worker")
    web.known_runs([run])
    for entry in _listing([run]).get(run, []):
        if entry["session"] == session and entry["worker"] == worker:
            data = web.provider().read_plugin_file(PLUGIN_NAME, run=run, path=entry["path"])
            return {"run": run, **entry}, _cache.get(data, entry["path"])
    raise NotFoundError(f"run {run!r} has no trace of session {session!r} and worker {worker!r}")


@blueprint.get("/traces")
def traces() -> Response:
    return web.json_response(_listing())


@blueprint.get("/timeline")
def timeline() -> Response:
    entry, parsed = _trace()
    t = parsed.timeline
    return web.json_response(
        {
            **entry,
            "start_us": t.start_us,
            "span_us": t.span_us,
            "events": len(t),
            "events_total": t.events_total,
            "skipped": t.skipped,
            "unclosed": t.unclosed,
            "tracks": [
                {
                    "name": k.name,
                    "pid": k.pid,
                    "tid": k.tid,
                    "first": k.first,
                    "count": k.count,
                    "depth": k.depth,
                }
                for k in t.tracks
            ],
            "names": t.names,
            "ts": np.round(t.ts, _DECIMALS).tolist(),
            "dur": np.round(t.dur, _DECIMALS).tolist(),
            "name": t.name.tolist(),
            "depth": t.depth.tolist(),
        }
    )


@blueprint.get("/event")
def event() -> Response:
    _, parsed = _trace()
    index = web.int_param(web.params(), "index", default=None, low=0, high=max(0, len(parsed.timeline) - 1))
    if index is None:
        raise InvalidArgumentError("missing parameter 'index'")
    if index >= len(parsed.timeline):
        raise NotFoundError("the trace has no events")
    return web.json_response(analysis.event_details(parsed.timeline, parsed.events, index))


@blueprint.get("/ops")
def ops() -> Response:
    _, parsed = _trace()
    return web.json_response({"ops": tables.op_table(parsed.timeline)})


@blueprint.get("/steps")
def steps() -> Response:
    _, parsed = _trace()
    return web.json_response(tables.step_times(parsed.timeline))
