"""The PR curves plugin's name and metadata (float32 ``[6, num_thresholds]`` tensors)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "pr_curves"
PROTO_VERSION = 0
ROWS = ("true_positives", "false_positives", "true_negatives", "false_negatives", "precision", "recall")


def create_summary_metadata(
    num_thresholds: int, *, display_name: str = "", description: str = ""
) -> summary_pb2.SummaryMetadata:
    """Metadata written with the first curve of a tag."""
    content = plugins_pb2.PrCurvePluginData(
        version=PROTO_VERSION, num_thresholds=num_thresholds
    ).SerializeToString()
    return summary_metadata(
        PLUGIN_NAME,
        content,
        summary_pb2.DATA_CLASS_TENSOR,
        display_name=display_name,
        description=description,
    )
