"""The graphs frames: one row per graph (``graphs``) and one per node or layer (``graph_nodes``).

Both read the blob sequences of the plugins the graphs decoder names in ``FRAME_KINDS`` (op
graphs, Keras models, tagged run metadata) from the provider, and parse each blob with its
plugin's decoder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tbkit.plugins import registry
from tbkit.plugins._frames import records_frame
from tbkit.provider import DataProvider

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin

__all__ = ["graph_nodes_frame", "graphs_frame"]

_NODE_COLUMNS = ["run", "tag", "step", "kind", "name", "op", "inputs", "shape", "scope", "device"]


def _graphs(provider: DataProvider, plugin: Plugin) -> list[tuple[str, str, int, float, str, Any]]:
    """``(run, tag, step, wall_time, kind, graph)`` of every graph blob, sorted by run, tag, step."""
    out = []
    for name, kind in registry.decoder(plugin.name).FRAME_KINDS.items():
        dec = registry.decoder(name)
        parse = getattr(dec, "parse", None) if dec is not None else None
        for run, tags in provider.read_blob_columns(name).items():
            for tag, (_, steps, walls, blobs, _) in tags.items():
                for step, wall, point in zip(steps.tolist(), walls.tolist(), blobs, strict=True):
                    out.extend((run, tag, step, wall, kind, parse(b) if parse else bytes(b)) for b in point)
    return sorted(out, key=lambda p: (p[0], p[1], p[2]))


def graphs_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """run, tag, step, wall_time, kind, graph, nodes.

    ``kind`` is ``op_graph`` (``graph`` a ``GraphDef``), ``keras`` (the model config dict)
    or ``run_metadata`` (the serialized ``RunMetadata`` bytes); ``nodes`` counts the
    GraphDef's nodes or the Keras model's layers (None for run metadata).
    """
    keras = registry.decoder(_plugin_of(plugin, "keras"))
    records = []
    for run, tag, step, wall, kind, graph in _graphs(provider, plugin):
        if kind == "op_graph":
            count: int | None = len(graph.node)
        elif kind == "keras":
            count = len(keras.layer_rows(graph))
        else:
            count = None
        records.append({"run": run, "tag": tag, "step": step, "wall_time": wall, "kind": kind, "graph": graph,
                        "nodes": count})  # fmt: skip
    frame = records_frame(records, ["run", "tag", "step", "wall_time", "kind", "graph", "nodes"])
    frame["nodes"] = frame["nodes"].astype("Int64")
    return frame


def graph_nodes_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """One row per node of every op graph and Keras model: run, tag, step, kind, name, op,
    inputs (list of names), shape (per output: list of dims, -1 unknown; None if unknown),
    scope (name up to its last ``/``), device."""
    rows_of = {
        "op_graph": registry.decoder(_plugin_of(plugin, "op_graph")).node_rows,
        "keras": registry.decoder(_plugin_of(plugin, "keras")).layer_rows,
    }
    records = []
    for run, tag, step, _, kind, graph in _graphs(provider, plugin):
        if kind in rows_of:
            records.extend(
                {"run": run, "tag": tag, "step": step, "kind": kind, **row} for row in rows_of[kind](graph)
            )
    frame = records_frame(records, _NODE_COLUMNS)
    frame["kind"] = frame["kind"].astype("category")
    return frame


def _plugin_of(plugin: Plugin, kind: str) -> str:
    """The plugin whose graphs are of ``kind`` (the graphs decoder's ``FRAME_KINDS``)."""
    kinds = registry.decoder(plugin.name).FRAME_KINDS
    return next(name for name, found in kinds.items() if found == kind)
