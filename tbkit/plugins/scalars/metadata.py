"""The scalars plugin's name and metadata (rank-0 float tensors, data class SCALAR)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "scalars"
PROTO_VERSION = 0


def create_summary_metadata(*, display_name: str = "", description: str = "") -> summary_pb2.SummaryMetadata:
    """Metadata written with the first scalar of a tag."""
    content = plugins_pb2.ScalarPluginData(version=PROTO_VERSION).SerializeToString()
    return summary_metadata(
        PLUGIN_NAME,
        content,
        summary_pb2.DATA_CLASS_SCALAR,
        display_name=display_name,
        description=description,
    )
