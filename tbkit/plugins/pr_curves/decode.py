"""Reading PR curves: float ``[6, num_thresholds]`` tensors (TP, FP, TN, FN, precision, recall)."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.pr_curves.metadata import PLUGIN_NAME, PROTO_VERSION, ROWS
from tbkit.proto import plugins_pb2

__all__ = ["COLUMNS", "DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "decode", "rows", "supported"]

DATA_CLASS = "tensor"
LEGACY_FIELD = None
COLUMNS = ("thresholds", "tp", "fp", "tn", "fn", "precision", "recall")


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.PrCurvePluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def decode(array: np.ndarray) -> np.ndarray:
    """Check a ``[6, num_thresholds]`` number tensor and return it as float64.

    Example:
        >>> decode(np.zeros((6, 3), np.float32)).dtype
        dtype('float64')
    """
    if array.ndim != 2 or array.shape[0] != len(ROWS) or array.dtype.kind not in "fiu":
        raise ValueError(
            f"a PR curve must be a [6, num_thresholds] number tensor, got {array.dtype} {array.shape}"
        )
    return array.astype(np.float64)


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row: ``thresholds`` (``linspace(0, 1, n)``, as TensorBoard shows them) and the six rows.

    Example:
        >>> rows(np.arange(12, dtype=np.float64).reshape(6, 2))[0]["thresholds"].tolist()
        [0.0, 1.0]
    """
    n = stored.shape[1]
    row = {"thresholds": np.linspace(0.0, 1.0, n)}
    row.update({name: stored[i].copy() for i, name in enumerate(COLUMNS[1:])})
    return [row]
