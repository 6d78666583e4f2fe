"""The mesh plugin's name and metadata: one series per component (vertices, faces, colors)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "mesh"
PROTO_VERSION = 0
ContentType = plugins_pb2.MeshPluginData.ContentType


def components_bitmask(content_types: list[int]) -> int:
    """The bitmask of the components a mesh has: bit ``t`` set for each content type ``t``."""
    mask = 0
    for content_type in content_types:
        mask |= 1 << content_type
    return mask


def create_summary_metadata(
    name: str, content_type: int, components: int, shape: tuple[int, ...], json_config: str = ""
) -> summary_pb2.SummaryMetadata:
    """Metadata of one component series of mesh ``name``."""
    content = plugins_pb2.MeshPluginData(
        version=PROTO_VERSION,
        name=name,
        content_type=content_type,
        components=components,
        shape=list(shape),
        json_config=json_config,
    ).SerializeToString()
    return summary_metadata(PLUGIN_NAME, content, summary_pb2.DATA_CLASS_TENSOR)
