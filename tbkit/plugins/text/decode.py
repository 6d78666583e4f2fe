"""Reading text: string tensors (rank 0: one Markdown text; higher ranks: a table)."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.text.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import plugins_pb2

__all__ = ["DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "decode", "rows", "supported"]

DATA_CLASS = "tensor"
LEGACY_FIELD = None


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.TextPluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def _text(item: object) -> str:
    return item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)


def decode(array: np.ndarray) -> np.ndarray:
    """A string tensor with its bytes decoded as UTF-8 (an object array of ``str``)."""
    if array.dtype != object:
        raise ValueError(f"a text summary must be a string tensor, got {array.dtype}")
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, item in enumerate(array.reshape(-1).tolist()):
        flat[i] = _text(item)
    return out


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row: ``text`` is a ``str`` for one text, else the array of strings (a table).

    One text is a rank-0 tensor (TensorFlow's ``tf.summary.text``) or a one-element vector
    (what ``torch.utils.tensorboard`` and tbkit write for a string): both come back as the ``str``.
    """
    one = stored.ndim == 0 or stored.shape == (1,)
    return [{"text": stored.reshape(-1)[0] if one else stored}]
