"""Reading scalars: legacy ``simple_value`` and rank-0 tensors of any numeric dtype to float."""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.scalars.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import plugins_pb2, summary_pb2

__all__ = ["DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "decode", "migrate", "supported"]

DATA_CLASS = "scalar"
LEGACY_FIELD = "simple_value"


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.ScalarPluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def migrate(value: summary_pb2.Summary.Value) -> np.ndarray:
    """A legacy ``simple_value`` as the modern rank-0 float32 tensor."""
    return np.asarray(value.simple_value, dtype=np.float32)


def decode(array: np.ndarray) -> float:
    """A scalar tensor (one element, any real or boolean dtype) as a Python float.

    Example:
        >>> decode(np.asarray(3, dtype=np.int64))
        3.0
    """
    if array.size != 1 or array.dtype.kind not in "fiub":
        raise ValueError(f"a scalar must be one number, got a {array.dtype} tensor of shape {array.shape}")
    return float(array.reshape(-1)[0])
