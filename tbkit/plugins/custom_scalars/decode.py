"""Reading custom-scalars layouts: a rank-0 string tensor holding a serialized ``Layout``."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.custom_scalars.metadata import CONFIG_TAG, PLUGIN_NAME
from tbkit.proto import plugins_pb2

__all__ = [
    "CONFIG_TAG",
    "DATA_CLASS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "decode",
    "layout_dict",
    "parse",
    "rows",
    "supported",
]

DATA_CLASS = "tensor"
LEGACY_FIELD = None


def supported(content: bytes) -> bool:
    """The layout carries no versioned payload: always readable."""
    return True


def parse(array: np.ndarray) -> plugins_pb2.Layout:
    """The ``Layout`` in a one-element string tensor.

    Raises:
        ValueError: Not one string, or the bytes are not a ``Layout``.
    """
    if array.dtype != object or array.size != 1:
        raise ValueError(f"a custom-scalars layout must be one string, got {array.dtype} {array.shape}")
    data = array.reshape(-1)[0]
    try:
        return plugins_pb2.Layout.FromString(data if isinstance(data, bytes) else str(data).encode("utf-8"))
    except DecodeError as exc:
        raise ValueError(f"not a serialized custom-scalars Layout: {exc}") from exc


def decode(array: np.ndarray) -> np.ndarray:
    """Check that the tensor holds a ``Layout`` and keep it as it is (served as TensorBoard does)."""
    parse(array)
    return array


def layout_dict(layout: plugins_pb2.Layout) -> dict[str, dict[str, list[Any]]]:
    """``{category: {chart title: [kind, tags]}}``, the form ``add_custom_scalars`` takes (torch's).

    Example:
        >>> from tbkit.plugins.custom_scalars.summary import layout_from_dict
        >>> layout_dict(layout_from_dict({"c": {"t": ["Multiline", ["a.*"]]}}))
        {'c': {'t': ['Multiline', ['a.*']]}}
    """
    out: dict[str, dict[str, list[Any]]] = {}
    for category in layout.category:
        charts = out.setdefault(category.title, {})
        for chart in category.chart:
            if chart.WhichOneof("content") == "margin":
                for series in chart.margin.series:
                    charts[chart.title] = ["Margin", [series.value, series.lower, series.upper]]
            else:
                charts[chart.title] = ["Multiline", list(chart.multiline.tag)]
    return out


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row: ``layout`` (the dict form) and ``proto`` (the ``Layout`` message)."""
    proto = parse(stored)
    return [{"layout": layout_dict(proto), "proto": proto}]
