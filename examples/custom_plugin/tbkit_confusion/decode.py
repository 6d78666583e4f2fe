"""The read side of the ``confusion_matrix`` plugin, in the shape tbkit's registry expects.

See ``tbkit/plugins/registry.py``: ``PLUGIN_NAME``, ``DATA_CLASS``, ``LEGACY_FIELD``,
``supported(content)``, ``decode(array)`` and the optional ``check(content)``.
"""

from __future__ import annotations

import json

import numpy as np

PLUGIN_NAME = "confusion_matrix"
DATA_CLASS = "tensor"
LEGACY_FIELD = None
KNOWN_VERSION = 1


def _version(content: bytes) -> int:
    try:
        return int(json.loads(content or b"{}").get("version", 0))
    except (ValueError, TypeError, AttributeError):
        return -1


def supported(content: bytes) -> bool:
    """False for a payload of a newer version than this reader knows: tbkit refuses the series."""
    return 0 <= _version(content) <= KNOWN_VERSION


def check(content: bytes) -> str | None:
    """Why a series' payload cannot be fully read (recorded as a problem), or None."""
    return "unreadable confusion_matrix payload" if _version(content) < 0 else None


def decode(array: np.ndarray) -> np.ndarray:
    """The stored value of one summary: the square matrix as int64."""
    matrix = np.asarray(array)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"a confusion matrix is square, got shape {matrix.shape}")
    return matrix.astype(np.int64)
