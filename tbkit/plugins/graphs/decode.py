"""Reading op graphs: ``Event.graph_def`` bytes (the run graph, tag ``__run_graph__``) as ``GraphDef``.

The reader stores each ``graph_def`` event as a one-blob sequence of plugin ``graphs``, as
TensorBoard's data migration does; :func:`decode` checks that the blob parses, so a graph
that does not becomes a problem naming its file instead of a blob the dashboard cannot draw.
:func:`node_rows` flattens a ``GraphDef`` into the rows of ``Logdir.graph_nodes()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.graphs.metadata import PLUGIN_NAME, PLUGIN_NAME_KERAS_MODEL, RUN_GRAPH_NAME
from tbkit.proto import graph_pb2

__all__ = [
    "DATA_CLASS",
    "FRAME_KINDS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "RUN_GRAPH_NAME",
    "blobs",
    "decode",
    "node_rows",
    "parse",
    "supported",
]

DATA_CLASS = "blob_sequence"
LEGACY_FIELD = None
KIND = "op_graph"
# The graph plugins and the ``kind`` each shows in ``Logdir.graphs()``: op graphs (this
# decoder), Keras models (decode_keras) and tagged run metadata (kept as raw bytes).
FRAME_KINDS = {
    PLUGIN_NAME: KIND,
    PLUGIN_NAME_KERAS_MODEL: "keras",
    "graph_tagged_run_metadata": "run_metadata",
}


def supported(content: bytes) -> bool:
    """Graphs carry no versioned payload: always readable."""
    return True


def parse(blob: bytes) -> graph_pb2.GraphDef:
    """A serialized ``GraphDef`` parsed.

    Raises:
        ValueError: The bytes are not a ``GraphDef``.
    """
    try:
        return graph_pb2.GraphDef.FromString(bytes(blob))
    except DecodeError as exc:
        raise ValueError(f"graph_def does not parse as a GraphDef: {exc}") from exc


def decode(array: np.ndarray) -> np.ndarray:
    """Check that every blob parses as a ``GraphDef``; the blobs are kept as bytes (a 1-D array)."""
    if array.dtype != object:
        raise ValueError(f"a graph must be a string tensor, got {array.dtype}")
    flat = array.reshape(-1)
    for blob in flat.tolist():
        parse(blob)
    return flat


def blobs(stored: np.ndarray) -> list[bytes]:
    """The blob sequence TensorBoard serves: the serialized ``GraphDef``."""
    return [bytes(b) for b in stored.tolist()]


def _shapes(node: graph_pb2.NodeDef) -> list[list[int] | None] | None:
    attr = node.attr.get("_output_shapes")
    if attr is None:
        return None
    return [None if s.unknown_rank else [d.size for d in s.dim] for s in attr.list.shape]


def node_rows(graph: graph_pb2.GraphDef) -> list[dict[str, Any]]:
    """One row per node: name, op, inputs (names, ``^`` for control inputs), device,
    shape (one dim list per output from ``_output_shapes``, -1 for unknown sizes, None for
    unknown rank; None without the attribute) and scope (the name up to its last ``/``).

    Example:
        >>> g = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="net/fc/add", op="Add", input=["x"])])
        >>> node_rows(g)[0]["scope"]
        'net/fc'
    """
    return [
        {"name": n.name, "op": n.op, "inputs": list(n.input), "device": n.device, "shape": _shapes(n),
         "scope": n.name.rpartition("/")[0]}
        for n in graph.node
    ]  # fmt: skip
