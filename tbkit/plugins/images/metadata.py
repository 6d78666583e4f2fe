"""The images plugin's name and metadata (string tensors ``[width, height, png, ...]``)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "images"
PROTO_VERSION = 0


def create_summary_metadata(*, display_name: str = "", description: str = "") -> summary_pb2.SummaryMetadata:
    """Metadata written with the first image of a tag."""
    content = plugins_pb2.ImagePluginData(version=PROTO_VERSION).SerializeToString()
    return summary_metadata(
        PLUGIN_NAME,
        content,
        summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
        display_name=display_name,
        description=description,
    )
