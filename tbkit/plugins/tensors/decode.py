"""Reading plain tensors: kept as the NumPy arrays they encode."""

from __future__ import annotations

from typing import Any

import numpy as np

from tbkit.plugins.tensors.metadata import PLUGIN_NAME

__all__ = ["DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "decode", "rows", "supported"]

DATA_CLASS = "tensor"
LEGACY_FIELD = None


def supported(content: bytes) -> bool:
    """Plain tensors carry no versioned payload: always readable."""
    return True


def decode(array: np.ndarray) -> np.ndarray:
    """The array itself."""
    return array


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row holding the array."""
    return [{"value": stored}]
