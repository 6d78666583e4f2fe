"""The custom scalars plugin: a ``Layout`` under the tag ``custom_scalars__config__``."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import summary_pb2

PLUGIN_NAME = "custom_scalars"
CONFIG_TAG = "custom_scalars__config__"


def create_summary_metadata() -> summary_pb2.SummaryMetadata:
    """Metadata of the layout summary."""
    return summary_metadata(PLUGIN_NAME, b"", summary_pb2.DATA_CLASS_TENSOR)
