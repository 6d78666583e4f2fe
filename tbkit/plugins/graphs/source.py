"""A run's graph as the dashboard reads it: rows, a :class:`ScopedGraph`, and each node's details.

Two kinds: an op graph (``GraphDef``, plugin ``graphs``, parsed by
:func:`tbkit.plugins.graphs.decode.parse`) and a Keras conceptual graph (the model config,
plugin ``graph_keras_model``, read by :mod:`tbkit.plugins.graphs.decode_keras`). Details
turn attribute values into short text: a Const's tensor is its dtype and shape, never
its contents.

Example:
    >>> from tbkit.proto import graph_pb2
    >>> g = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="s/x", op="Placeholder")])
    >>> loaded = LoadedGraph.from_graph_def(g)
    >>> loaded.details("s/x")["op"]
    'Placeholder'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tbkit.plugins.graphs import decode, decode_keras
from tbkit.plugins.graphs.scopes import ScopedGraph, input_name
from tbkit.proto import graph_pb2, types_pb2

__all__ = ["KINDS", "LoadedGraph", "format_attr"]

KINDS = {decode.PLUGIN_NAME: "op_graph", decode_keras.PLUGIN_NAME: "keras"}
MAX_TEXT = 300  # characters of one attribute's text
_HIDDEN_ATTRS = {"_output_shapes"}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _dtype(value: int) -> str:
    try:
        return types_pb2.DataType.Name(value).removeprefix("DT_").lower()
    except ValueError:
        return str(value)


def _shape(shape: Any) -> str:
    if shape.unknown_rank:
        return "<unknown>"
    return "(" + ", ".join("?" if d.size < 0 else str(d.size) for d in shape.dim) + ")"


def _bytes(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")


def format_attr(value: graph_pb2.AttrValue) -> str:
    """One ``AttrValue`` as short text (``float32``, ``(?, 3)``, ``[1, 2]``, ``tensor float32 (3, 2)``)."""
    which = value.WhichOneof("value")
    if which == "s":
        return _cut(_bytes(value.s))
    if which in ("i", "f", "b"):
        return str(getattr(value, which))
    if which == "type":
        return _dtype(value.type)
    if which == "shape":
        return _shape(value.shape)
    if which == "tensor":
        return f"tensor {_dtype(value.tensor.dtype)} {_shape(value.tensor.tensor_shape)}"
    if which == "func":
        return f"function {value.func.name}"
    if which == "placeholder":
        return f"placeholder {value.placeholder}"
    if which == "list":
        lv = value.list
        parts = (
            [_bytes(s) for s in lv.s]
            + [str(v) for v in lv.i]
            + [str(v) for v in lv.f]
            + [str(v) for v in lv.b]
            + [_dtype(t) for t in lv.type]
            + [_shape(s) for s in lv.shape]
            + [f"tensor {_dtype(t.dtype)} {_shape(t.tensor_shape)}" for t in lv.tensor]
            + [f"function {f.name}" for f in lv.func]
        )
        return _cut("[" + ", ".join(parts) + "]")
    return ""


def _json_text(value: Any) -> str:
    return _cut(value if isinstance(value, str) else json.dumps(value, separators=(", ", ": ")))


@dataclass
class LoadedGraph:
    """One graph ready for the dashboard.

    Attributes:
        kind: ``"op_graph"`` or ``"keras"``.
        graph: The ops grouped by scope.
        attributes: Per op, ``[[key, text], ...]`` in key order.
    """

    kind: str
    graph: ScopedGraph
    attributes: list[list[list[str]]]

    @classmethod
    def from_graph_def(cls, graph_def: graph_pb2.GraphDef) -> LoadedGraph:
        """An op graph."""
        rows = decode.node_rows(graph_def)
        attributes = [
            [[key, format_attr(node.attr[key])] for key in sorted(node.attr) if key not in _HIDDEN_ATTRS]
            for node in graph_def.node
        ]
        return cls("op_graph", ScopedGraph.from_rows(rows), attributes)

    @classmethod
    def from_keras(cls, config: Mapping[str, Any]) -> LoadedGraph:
        """A Keras conceptual graph: a node per layer, its config as attributes."""
        rows = decode_keras.layer_rows(dict(config))
        layers = (config.get("config") or {}).get("layers") or []
        attributes = []
        for k in range(len(rows)):
            layer = layers[k] if k < len(layers) and isinstance(layers[k], dict) else {}
            inner = layer.get("config") or {}
            attributes.append(
                [[str(key), _json_text(inner[key])] for key in sorted(inner) if key != "name"]
                if isinstance(inner, dict)
                else []
            )
        return cls("keras", ScopedGraph.from_rows(rows), attributes)

    @classmethod
    def from_blob(cls, plugin_name: str, blob: bytes) -> LoadedGraph:
        """Parse a graph blob of plugin ``graphs`` or ``graph_keras_model``.

        Raises:
            ValueError: The blob does not parse.
        """
        if plugin_name == decode_keras.PLUGIN_NAME:
            return cls.from_keras(decode_keras.parse(blob))
        return cls.from_graph_def(decode.parse(blob))

    def details(self, name: str) -> dict[str, Any] | None:
        """An op's details: op, device, inputs (with ``control`` and ``missing`` flags), outputs,
        shape (one dim list per output) and attributes; None when no op has that name."""
        g = self.graph
        index = g.index.get(name)
        if index is None:
            return None
        row = g.rows[index]
        inputs = []
        for raw in row.get("inputs") or ():
            source, control = input_name(str(raw), g.index)
            missing = source not in g.index
            inputs.append({"name": source, "raw": str(raw), "control": control, "missing": missing})
        return {
            "kind": "op",
            "name": name,
            "op": g.ops[index],
            "device": row.get("device") or "",
            "scope": g.scope_names[g.op_scope[index]],
            "inputs": inputs,
            "outputs": [g.names[t] for t in dict.fromkeys(g.consumers[index])],
            "shape": row.get("shape"),
            "attributes": self.attributes[index],
        }

    def scope_details(self, name: str) -> dict[str, Any] | None:
        """A scope's details: ops inside (all levels), child scopes and ops, the commonest op types."""
        g = self.graph
        scope = g.scope_index.get(name)
        if scope is None or scope == 0:
            return None
        return {
            "kind": "scope",
            "name": name,
            "count": g.op_count[scope],
            "scopes": len(g.child_scopes[scope]),
            "children": len(g.child_ops[scope]) + len(g.child_scopes[scope]),
            "ops": [[op, k] for op, k in g.scope_ops(scope, 10)],
        }
