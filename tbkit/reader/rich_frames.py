"""Frames of the rich event kinds: graphs (meshes and hparams are their kinds' frames).

PR curves and custom-scalars layouts are plain kind frames (:func:`.frames.kind_frame`).

Same conventions as :mod:`tbkit.reader.frames` (long format, categorical ``run`` and
``tag``, int64 ``step``, float64 ``wall_time``); each kind's rows come from its plugin's
decoder, found through the registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.plugins import registry
from tbkit.reader.frames import _frame, _selected
from tbkit.reader.index import LogdirIndex

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "graph_nodes_frame",
    "graphs_frame",
]

_BASE = ["run", "tag", "step", "wall_time"]


def _points(index: LogdirIndex, plugin: str) -> list[tuple[str, str, Any, int, float, Any]]:
    out = []
    with index._lock:
        for run, tag, series in _selected(index, lambda s: s.meta.plugin_name == plugin and not s.is_scalar):
            steps, walls, values = series.columns()
            for step, wall, stored in zip(steps.tolist(), walls.tolist(), values, strict=True):
                out.append((run, tag, series, step, wall, stored))
    return out


def _graph_kinds(plugin: str) -> dict[str, str]:
    """Plugin name -> the ``kind`` shown in graphs(), as ``plugin``'s decoder names them (``FRAME_KINDS``)."""
    return dict(registry.decoder(plugin).FRAME_KINDS)


def _graph_points(index: LogdirIndex, plugin: str) -> list[tuple[str, str, int, float, str, Any]]:
    out = []
    for name, kind in _graph_kinds(plugin).items():
        dec = registry.decoder(name)
        for run, tag, _, step, wall, stored in _points(index, name):
            for blob in stored.reshape(-1).tolist() if isinstance(stored, np.ndarray) else [stored]:
                graph = dec.parse(blob) if dec is not None and hasattr(dec, "parse") else bytes(blob)
                out.append((run, tag, step, wall, kind, graph))
    return sorted(out, key=lambda p: (p[0], p[1], p[2]))


def _kind_decoders(plugin: str) -> dict[str, Any]:
    return {kind: registry.decoder(name) for name, kind in _graph_kinds(plugin).items()}


def graphs_frame(index: LogdirIndex, plugin: str) -> pd.DataFrame:
    """run, tag, step, wall_time, kind, graph, nodes.

    ``kind`` is ``op_graph`` (``graph`` a ``GraphDef``), ``keras`` (the model config dict)
    or ``run_metadata`` (the serialized ``RunMetadata`` bytes); ``nodes`` counts the
    GraphDef's nodes or the Keras model's layers (None for run metadata). ``plugin`` names the
    graph plugins and their kinds (its decoder's ``FRAME_KINDS``).
    """
    keras = _kind_decoders(plugin)["keras"]
    records = []
    for run, tag, step, wall, kind, graph in _graph_points(index, plugin):
        if kind == "op_graph":
            count: int | None = len(graph.node)
        elif kind == "keras":
            count = len(keras.layer_rows(graph))
        else:
            count = None
        records.append({"run": run, "tag": tag, "step": step, "wall_time": wall, "kind": kind, "graph": graph,
                        "nodes": count})  # fmt: skip
    frame = _frame(records, [*_BASE, "kind", "graph", "nodes"])
    frame["nodes"] = frame["nodes"].astype("Int64")
    return frame


def graph_nodes_frame(index: LogdirIndex, plugin: str) -> pd.DataFrame:
    """One row per node of every op graph and Keras model: run, tag, step, kind, name, op,
    inputs (list of names), shape (per output: list of dims, -1 unknown; None if unknown),
    scope (name up to its last ``/``), device."""
    decoders = _kind_decoders(plugin)
    records = []
    for run, tag, step, _, kind, graph in _graph_points(index, plugin):
        if kind == "op_graph":
            rows = decoders[kind].node_rows(graph)
        elif kind == "keras":
            rows = decoders[kind].layer_rows(graph)
        else:
            continue
        records.extend({"run": run, "tag": tag, "step": step, "kind": kind, **row} for row in rows)
    frame = _frame(
        records, ["run", "tag", "step", "kind", "name", "op", "inputs", "shape", "scope", "device"]
    )
    frame["kind"] = frame["kind"].astype("category")
    return frame
