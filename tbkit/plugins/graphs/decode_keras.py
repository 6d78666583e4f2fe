"""Reading Keras conceptual graphs: plugin ``graph_keras_model``, the model's ``to_json()``.

TensorFlow writes it as a rank-0 string tensor whose metadata leaves the data class unset;
like TensorBoard's ``dataclass_compat``, the reader keeps it as a one-blob sequence.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tbkit.plugins.graphs.metadata import PLUGIN_NAME_KERAS_MODEL

__all__ = ["DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "blobs", "decode", "layer_rows", "parse", "supported"]

PLUGIN_NAME = PLUGIN_NAME_KERAS_MODEL
DATA_CLASS = "blob_sequence"
LEGACY_FIELD = None
KIND = "keras"


def supported(content: bytes) -> bool:
    """Every payload version is read (the config is plain JSON)."""
    return True


def parse(blob: bytes | str) -> dict[str, Any]:
    """The model config (``model.to_json()``) as a dict.

    Raises:
        ValueError: Not a JSON object.
    """
    try:
        value = json.loads(blob)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"a Keras model config must be JSON: {exc}") from exc
    except RecursionError:  # nesting deeper than the interpreter's stack: hostile, not a model
        raise ValueError("a Keras model config nests too deeply to be read") from None
    if not isinstance(value, dict):
        raise ValueError(f"a Keras model config must be a JSON object, got {type(value).__name__}")
    return value


def decode(array: np.ndarray) -> np.ndarray:
    """A string tensor of one config (rank 0, as written) as a one-blob sequence, checked to be JSON."""
    if array.dtype != object or array.size != 1:
        raise ValueError(f"a Keras model summary must be one string, got {array.dtype} {array.shape}")
    flat = array.reshape(-1)
    parse(flat[0])
    return flat


def blobs(stored: np.ndarray) -> list[bytes]:
    """The blob sequence TensorBoard serves: the JSON config."""
    return [b if isinstance(b, bytes) else str(b).encode("utf-8") for b in stored.tolist()]


def _history(value: Any, out: list[str]) -> None:
    """Collect inbound layer names: Keras 3 ``keras_history`` and Keras 2 ``[name, i, j, {}]``.

    Walked with a stack of its own, not recursion: a config nested as deep as JSON allows
    must not exhaust the interpreter's stack.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            history = item.get("keras_history")
            if isinstance(history, list) and history and isinstance(history[0], str):
                out.append(history[0])
                continue
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            if len(item) >= 3 and isinstance(item[0], str) and isinstance(item[1], int):
                out.append(item[0])
                continue
            stack.extend(reversed(item))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _batch_shape(shape: Any) -> list[list[int]] | None:
    """An ``InputLayer``'s batch shape as one dim list (-1 for None); None unless a list of ints."""
    if not isinstance(shape, list):
        return None
    dims = [-1 if d is None else d for d in shape]
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        return None
    return [dims]


def layer_rows(config: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per layer: name (``<model>/<layer>``), op (the layer class), inputs, device
    (empty), shape (an ``InputLayer``'s batch shape, -1 for None; else None) and scope (the
    model's name). A Sequential model's layers take the previous layer as input.

    Example:
        >>> dense = [{"class_name": "Dense", "config": {"name": n}} for n in ("d1", "d2")]
        >>> cfg = {"class_name": "Sequential", "config": {"name": "m", "layers": dense}}
        >>> [(r["name"], r["inputs"]) for r in layer_rows(cfg)]
        [('m/d1', []), ('m/d2', ['m/d1'])]
    """
    body = _dict(config.get("config"))
    scope = str(body.get("name") or config.get("class_name") or "model")
    sequential = config.get("class_name") == "Sequential"
    rows: list[dict[str, Any]] = []
    layers = body.get("layers")
    for layer in layers if isinstance(layers, list) else []:
        if not isinstance(layer, dict):  # an oddly shaped config: what is not a layer is passed over
            continue
        inner = _dict(layer.get("config"))
        name = str(layer.get("name") or inner.get("name") or f"layer_{len(rows)}")
        inbound: list[str] = []
        if sequential:
            inbound = [rows[-1]["name"]] if rows else []
        else:
            _history(layer.get("inbound_nodes") or [], inbound)
            inbound = [f"{scope}/{n}" for n in dict.fromkeys(inbound)]
        shape = inner.get("batch_shape") or inner.get("batch_input_shape")
        rows.append({
            "name": f"{scope}/{name}", "op": str(layer.get("class_name", "")), "inputs": inbound,
            "device": "",
            "shape": _batch_shape(shape),
            "scope": scope,
        })  # fmt: skip
    return rows
