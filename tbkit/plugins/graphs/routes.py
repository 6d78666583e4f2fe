"""The graph dashboard's routes (``/data/plugin/graphs/``).

A run's op graph is the blob sequence of plugin ``graphs`` (tag ``__run_graph__``); a Keras
conceptual graph is plugin ``graph_keras_model`` (tag ``keras``). The latest step is shown.
The server lays the graph out (:mod:`tbkit.plugins.graphs.view`) at the scopes the page
expanded and keeps the last graphs and layouts in small LRU caches, per app, keyed by the
blob (so a rewritten graph is read again) and the set of expanded scopes.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from flask import Blueprint, Response, current_app

from tbkit.errors import DataError, InvalidArgumentError, NotFoundError
from tbkit.plugins import web
from tbkit.plugins.graphs.metadata import PLUGIN_NAME, PLUGIN_NAME_KERAS_MODEL
from tbkit.plugins.graphs.source import KINDS, LoadedGraph
from tbkit.plugins.graphs.view import draw

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("graphs", "Graphs", (PLUGIN_NAME, PLUGIN_NAME_KERAS_MODEL)),)
PLUGINS = (PLUGIN_NAME, PLUGIN_NAME_KERAS_MODEL)
GRAPHS_CACHED = 4
LAYOUTS_CACHED = 32
MAX_RESULTS = 200
_CACHE_KEY = "tbkit.graphs"

blueprint = Blueprint("graphs", __name__)
T = TypeVar("T")


class LRU:
    """A small thread-safe least-recently-used cache."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value of ``key``, made (outside the lock) and kept when missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


def _caches() -> tuple[LRU, LRU]:
    """This app's (graphs, layouts) caches."""
    found = current_app.extensions.get(_CACHE_KEY)
    if found is None:
        found = current_app.extensions.setdefault(_CACHE_KEY, (LRU(GRAPHS_CACHED), LRU(LAYOUTS_CACHED)))
    return found


@blueprint.get("/list")
def list_graphs() -> Response:
    provider = web.provider()
    out: dict[str, dict[str, Any]] = {}
    for plugin in PLUGINS:
        for run, series in provider.list_blob_sequences(plugin).items():
            for tag, meta in series.items():
                out.setdefault(run, {})[tag] = {
                    "plugin": plugin,
                    "graph_kind": KINDS[plugin],
                    "max_step": meta.max_step,
                    "max_wall_time": meta.max_wall_time,
                }
    return web.json_response(out)


def _parsed(plugin: str, blob: bytes, run: str, tag: str) -> LoadedGraph:
    """The graph in ``blob``; a 404 saying why when it cannot be read (never a 500).

    A malformed graph is logged data: the decoders should report it as a problem, but one
    that slips through (oddly shaped Keras JSON raised AttributeError, deep nesting
    RecursionError) must cost only this answer.
    """
    try:
        return LoadedGraph.from_blob(plugin, blob)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError, DataError) as exc:
        raise NotFoundError(
            f"run {run!r} has a graph under tag {tag!r} that cannot be read ({type(exc).__name__}: {exc})"
        ) from None


def _load(args: Any) -> tuple[tuple, LoadedGraph, dict[str, Any]]:
    """The graph named by ``run``, ``tag`` (and optionally ``plugin``): cache key, graph, facts."""
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    plugin = args.get("plugin") or None
    if plugin is not None and plugin not in PLUGINS:
        raise InvalidArgumentError(f"parameter 'plugin' must be one of {', '.join(PLUGINS)}")
    web.known_runs([run])
    provider = web.provider()
    if plugin is None:
        plugin = next(
            (p for p in PLUGINS if tag in provider.list_blob_sequences(p).get(run, {})),
            PLUGIN_NAME,
        )
    series = web.read_blob_series(provider, plugin, run, tag, 1)
    if not series or not series[-1].values:
        raise NotFoundError(f"run {run!r} has no graph under tag {tag!r}")
    datum = series[-1]
    key = (run, tag, plugin, datum.values[0].blob_key, datum.step, datum.wall_time)
    graphs, _ = _caches()
    blob_key = datum.values[0].blob_key
    loaded = graphs.get(key, lambda: _parsed(plugin, provider.read_blob(blob_key), run, tag))
    facts = {"run": run, "tag": tag, "plugin": plugin, "graph_kind": loaded.kind, "step": datum.step}
    return key, loaded, facts


def _expanded_param(args: Any) -> list[str] | None:
    raw = args.get("expanded")
    if raw is None:
        return None
    if isinstance(raw, list):
        if not all(isinstance(s, str) for s in raw):
            raise InvalidArgumentError("parameter 'expanded' must be a list of scope names")
        return raw
    if not isinstance(raw, str):
        raise InvalidArgumentError("parameter 'expanded' must be a list of scope names")
    if raw.startswith("["):
        try:
            value = json.loads(raw)
        except ValueError:
            raise InvalidArgumentError("parameter 'expanded' is not a valid JSON list") from None
        return _expanded_param({"expanded": value})
    return [s for s in raw.split(",") if s]


@blueprint.route("/layout", methods=["GET", "POST"])
def layout() -> Response:
    args = web.params()
    key, loaded, facts = _load(args)
    graph = loaded.graph
    every = web.int_param(args, "all", default=0, low=0, high=1)
    names = _expanded_param(args)
    if every:
        expanded = graph.all_scopes()
    elif names is None:
        expanded = graph.default_expanded()
    else:
        expanded = graph.normalize(names)
    _, layouts = _caches()
    drawn = layouts.get((key, expanded), lambda: draw(graph, expanded))
    return web.json_response(
        {
            **facts,
            "total_ops": len(graph.names),
            "total_scopes": len(graph.scope_names) - 1,
            "total_edges": len(graph.edges),
            "expanded": sorted(graph.scope_names[s] for s in expanded),
            "op_types": graph.op_types(),
            **drawn,
        }
    )


@blueprint.get("/node")
def node() -> Response:
    args = web.params()
    _, loaded, facts = _load(args)
    name = web.str_param(args, "name")
    kind = web.str_param(args, "kind", default="op")
    if kind not in ("op", "scope"):
        raise InvalidArgumentError("parameter 'kind' must be 'op' or 'scope'")
    found = loaded.details(name) if kind == "op" else loaded.scope_details(name)
    if found is None:
        raise NotFoundError(f"the graph has no {kind} {name!r}")
    return web.json_response({**facts, **found})


@blueprint.get("/search")
def search() -> Response:
    args = web.params()
    _, loaded, facts = _load(args)
    query = web.str_param(args, "q").strip().lower()
    limit = web.int_param(args, "limit", default=50, low=1, high=MAX_RESULTS) or 50
    if not query:
        return web.json_response({**facts, "matches": [], "total": 0})
    g = loaded.graph
    hits = [
        i
        for i, (name, op) in enumerate(zip(g.names, g.ops, strict=True))
        if query in name.lower() or query in op.lower()
    ]
    hits.sort(key=lambda i: (query not in g.names[i].lower().rpartition("/")[2], len(g.names[i]), g.names[i]))
    matches = [
        {"name": g.names[i], "op": g.ops[i], "scope": g.scope_names[g.op_scope[i]]} for i in hits[:limit]
    ]
    return web.json_response({**facts, "matches": matches, "total": len(hits)})
