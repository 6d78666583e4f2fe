"""Reading meshes: one tensor series per component (vertices, faces, colors), joined per step."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.mesh.metadata import PLUGIN_NAME, PROTO_VERSION, ContentType
from tbkit.proto import plugins_pb2

__all__ = ["DATA_CLASS", "LEGACY_FIELD", "PLUGIN_NAME", "decode", "join", "parse_content", "supported"]

DATA_CLASS = "tensor"
LEGACY_FIELD = None
_COLUMNS = {ContentType.VERTEX: "vertices", ContentType.FACE: "faces", ContentType.COLOR: "colors"}


def parse_content(content: bytes) -> plugins_pb2.MeshPluginData:
    """The ``MeshPluginData`` of a component series (empty when unreadable)."""
    try:
        return plugins_pb2.MeshPluginData.FromString(content)
    except DecodeError:
        return plugins_pb2.MeshPluginData()


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.MeshPluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def decode(array: np.ndarray) -> np.ndarray:
    """Check a ``[batch, n, 3]`` number tensor (vertices, faces or colors) and keep it."""
    if array.ndim != 3 or array.shape[-1] != 3 or array.dtype.kind not in "fiu":
        raise ValueError(
            f"a mesh component must be a [batch, n, 3] number tensor, got {array.dtype} {array.shape}"
        )
    return array


def _config(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {"json_config": text}
    return value if isinstance(value, dict) else {"json_config": value}


def join(
    series: Iterable[tuple[str, bytes, np.ndarray, np.ndarray, Any]],
) -> list[dict[str, Any]]:
    """Join component series into one row per (mesh, step).

    Args:
        series: ``(tag, plugin_content, steps, wall_times, values)`` of one run's mesh series.

    Returns:
        Rows with ``tag`` (the mesh's name), ``step``, ``wall_time`` (the vertices' one),
        ``vertices``, ``faces`` and ``colors`` (arrays, or None when absent) and ``config``
        (the dict given to ``add_mesh``), sorted by mesh name then step.
    """
    meshes: dict[tuple[str, int], dict[str, Any]] = {}
    for tag, content, steps, walls, values in series:
        info = parse_content(content)
        name = info.name or tag
        column = _COLUMNS.get(info.content_type)  # type: ignore[call-overload]
        if column is None:
            continue
        for step, wall, value in zip(steps.tolist(), walls.tolist(), values, strict=True):
            row = meshes.setdefault(
                (name, step),
                {"tag": name, "step": step, "wall_time": wall, "vertices": None, "faces": None,
                 "colors": None, "config": _config(info.json_config)},
            )  # fmt: skip
            row[column] = value
            if column == "vertices":
                row["wall_time"] = wall
    return [meshes[key] for key in sorted(meshes)]
