"""Turning the object cells of tbkit's frames into what Parquet, CSV and JSON can hold.

One rule per Python type, the same for every kind:

* NumPy arrays become (nested) lists; NumPy scalars plain numbers;
* tuples become lists; dicts and nested frames (``traces().top_ops``, ``embeddings().metadata``) become
  JSON text (a frame as ``{"columns": [...], "data": [[...], ...]}``);
* protobuf messages (``graphs().graph``, ``custom_scalars().proto``) become their
  serialized bytes;
* bytes stay bytes (Parquet: a binary column; CSV and JSON: written to files by the caller);
* a column mixing bytes and text holds bytes (text UTF-8 encoded); a column mixing lists with
  strings or numbers holds the lists as JSON text.

Example:
    >>> normalize_cells([np.arange(3), None]).cells
    [[0, 1, 2], None]
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Normalized", "normalize_cells", "to_json_text"]


class Normalized(NamedTuple):
    """Normalized cells and whether the column is binary (bytes, or None)."""

    cells: list[Any]
    binary: bool


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return _plain(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if hasattr(value, "to_json") and hasattr(value, "columns"):  # a pandas frame
        return json.loads(value.to_json(orient="split", index=False))
    if hasattr(value, "SerializeToString"):
        return base64.b64encode(value.SerializeToString()).decode("ascii")
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    return str(value)


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: they become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def to_json_text(value: Any) -> str:
    """``value`` as compact JSON text (arrays as lists, bytes as base64, NaN and ±inf as null)."""
    try:
        return json.dumps(value, default=_json_default, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a non-finite float somewhere inside
        plain = json.loads(json.dumps(value, default=_json_default, ensure_ascii=False))
        return json.dumps(_finite(plain), ensure_ascii=False, allow_nan=False)


def _plain(array: np.ndarray) -> Any:
    if array.dtype == object or array.dtype.kind in "SU":
        flat = [_cell(v) for v in array.reshape(-1).tolist()]
        if array.ndim == 0:
            return flat[0]
        return np.array([*flat, None], dtype=object)[:-1].reshape(array.shape).tolist()
    return array.tolist()


def _cell(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, np.ndarray):
        return _plain(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_cell(v) for v in value]
    if hasattr(value, "SerializeToString") and not isinstance(value, type):
        return value.SerializeToString()
    return to_json_text(value)  # dicts, tuples, frames, anything else


def normalize_cells(values: Sequence[Any]) -> Normalized:
    """The cells of one object column, normalized by the rules above."""
    cells = [_cell(v) for v in values]
    present = [c for c in cells if c is not None and not (isinstance(c, float) and math.isnan(c))]
    has_bytes = any(isinstance(c, bytes) for c in present)
    if has_bytes:
        cells = [c.encode("utf-8") if isinstance(c, str) else c for c in cells]
        cells = [to_json_text(c).encode("utf-8") if isinstance(c, list | int | float) else c for c in cells]
        return Normalized(cells, True)
    has_list = any(isinstance(c, list) for c in present)
    if has_list and not all(isinstance(c, list) for c in present):
        cells = [to_json_text(c) if isinstance(c, list) else c for c in cells]
    return Normalized(cells, False)
