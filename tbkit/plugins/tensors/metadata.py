"""Plain tensors (torch's ``add_tensor``): plugin name ``tensor``, data class TENSOR."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import summary_pb2

PLUGIN_NAME = "tensor"


def create_summary_metadata(*, display_name: str = "", description: str = "") -> summary_pb2.SummaryMetadata:
    """Metadata written with the first tensor of a tag."""
    return summary_metadata(
        PLUGIN_NAME, b"", summary_pb2.DATA_CLASS_TENSOR, display_name=display_name, description=description
    )
