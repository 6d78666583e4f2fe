"""Frames of the rich event kinds: meshes, graphs and hparams.

PR curves and custom-scalars layouts are plain kind frames (:func:`.frames.kind_frame`).

Same conventions as :mod:`tbkit.reader.frames` (long format, categorical ``run`` and
``tag``, int64 ``step``, float64 ``wall_time``); each kind's rows come from its plugin's
decoder, found through the registry.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.plugins import registry
from tbkit.provider import DataProvider, HParamsSession, SessionStatus
from tbkit.reader.frames import _frame, _pd, _selected
from tbkit.reader.index import LogdirIndex

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "graph_nodes_frame",
    "graphs_frame",
    "hparams_frame",
    "meshes_frame",
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


def meshes_frame(index: LogdirIndex, plugin: str) -> pd.DataFrame:
    """run, tag (the mesh's name), step, wall_time, vertices, faces, colors (arrays or None), config.

    ``plugin``'s decoder joins each mesh's component series (its ``join(parts)``).
    """
    dec = registry.decoder(plugin)
    records = []
    with index._lock:
        chosen = _selected(index, lambda s: s.meta.plugin_name == plugin and not s.is_scalar)
        by_run: dict[str, list[tuple[str, bytes, np.ndarray, np.ndarray, Any]]] = {}
        for run, tag, series in chosen:
            by_run.setdefault(run, []).append((tag, series.meta.plugin_content, *series.columns()))
        for run, parts in by_run.items():
            records.extend({"run": run, **row} for row in dec.join(parts))
    return _frame(records, [*_BASE, "vertices", "faces", "colors", "config"])


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


# -- hparams ----------------------------------------------------------------------------------


def _column(values: list[Any]) -> Any:
    """A column for hyperparameter values (None where missing), typed by what is present."""
    pd = _pd()
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return pd.array(values, dtype="boolean")
    if kinds <= {float, int}:
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    if kinds == {str}:
        return pd.array(values, dtype="string")
    return pd.array([pd.NA if v is None else v for v in values], dtype=object)


def hparams_frame(provider: DataProvider) -> pd.DataFrame:
    """One row per session: run, group, status, start_time, end_time, one column per
    hyperparameter (float64, nullable boolean or string; NA where a session lacks it), then
    one float64 column per metric (``group/tag``; NaN where missing) holding its last value.

    A metric whose name equals a hyperparameter's (or a fixed column's) is named
    ``metric/<name>``.
    """
    pd = _pd()
    experiment = provider.list_hyperparameters()
    groups = provider.read_hyperparameters()
    sessions: list[HParamsSession] = sorted((s for g in groups for s in g.sessions), key=lambda s: s.run)
    names = sorted({h.name for h in experiment.hyperparameters} | {k for s in sessions for k in s.hparams})
    fixed = ["run", "group", "status", "start_time", "end_time"]
    data: dict[str, Any] = {
        "run": pd.Categorical([s.run for s in sessions]),
        "group": pd.array([s.group for s in sessions], dtype="string"),
        "status": pd.Categorical(
            [s.status.value for s in sessions], categories=[v.value for v in SessionStatus]
        ),
        "start_time": np.array(
            [math.nan if s.start_time_secs is None else s.start_time_secs for s in sessions]
        ),
        "end_time": np.array([math.nan if s.end_time_secs is None else s.end_time_secs for s in sessions]),
    }
    for name in names:
        data[name if name not in fixed else f"hparam/{name}"] = _column(
            [s.hparams.get(name) for s in sessions]
        )
    for metric in experiment.metrics:
        column = metric.name if metric.name not in data else f"metric/{metric.name}"
        values = []
        for s in sessions:
            found = [m.value for m in s.metrics if (m.group, m.tag) == (metric.group, metric.tag)]
            values.append(found[0] if found else math.nan)
        data[column] = np.array(values, dtype=np.float64)
    return pd.DataFrame(data)
