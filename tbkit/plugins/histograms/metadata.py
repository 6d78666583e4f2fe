"""The histograms plugin's name and metadata (float ``[k, 3]`` tensors: left, right, count)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "histograms"
PROTO_VERSION = 0
DEFAULT_BUCKET_COUNT = 30


def create_summary_metadata(*, display_name: str = "", description: str = "") -> summary_pb2.SummaryMetadata:
    """Metadata written with the first histogram of a tag."""
    content = plugins_pb2.HistogramPluginData(version=PROTO_VERSION).SerializeToString()
    return summary_metadata(
        PLUGIN_NAME,
        content,
        summary_pb2.DATA_CLASS_TENSOR,
        display_name=display_name,
        description=description,
    )
