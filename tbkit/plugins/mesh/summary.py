"""Mesh and point-cloud summaries: vertices, faces and colors as three tensor series."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins.mesh.metadata import ContentType, components_bitmask, create_summary_metadata
from tbkit.proto import summary_pb2


def component_tag(name: str, content_type: int) -> str:
    """The tag of one component series: ``<name>_VERTEX``, ``<name>_FACE`` or ``<name>_COLOR``."""
    return f"{name}_{ContentType.Name(content_type)}"


def mesh_pb(
    name: str,
    vertices: np.ndarray,
    faces: np.ndarray | None = None,
    colors: np.ndarray | None = None,
    config: dict[str, Any] | None = None,
) -> summary_pb2.Summary:
    """A mesh ``Summary``: one value per component, as torch's ``add_mesh`` writes it.

    Vertices ``[batch, n, 3]``, faces ``[batch, f, 3]`` vertex indices and colors
    ``[batch, n, 3]`` RGB (0-255) are all written as float32 tensors, as torch does (the mesh
    plugins, TensorBoard's and tbkit's, convert faces and colors back); the config is the
    JSON of ``config`` (``{}`` without one).
    """
    parts = [(ContentType.VERTEX, np.asarray(vertices, dtype=np.float32))]
    if faces is not None:
        parts.append((ContentType.FACE, np.asarray(faces, dtype=np.float32)))
    if colors is not None:
        parts.append((ContentType.COLOR, np.asarray(colors, dtype=np.float32)))
    for content_type, array in parts:
        if array.ndim != 3 or array.shape[-1] != 3:
            label = {ContentType.VERTEX: "vertices", ContentType.FACE: "faces", ContentType.COLOR: "colors"}
            raise ValueError(f"{label[content_type]} must have shape [batch, n, 3], got {array.shape}")
    components = components_bitmask([ct for ct, _ in parts])
    json_config = json.dumps(config if config is not None else {}, sort_keys=True)
    summary = summary_pb2.Summary()
    for content_type, array in parts:
        value = summary.value.add(tag=component_tag(name, content_type))
        value.metadata.CopyFrom(
            create_summary_metadata(name, content_type, components, array.shape, json_config)
        )
        value.tensor.CopyFrom(make_tensor_proto(array))
    return summary
