"""The audio plugin's name and metadata (string tensors ``[k, 2]``: WAV bytes, label)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

PLUGIN_NAME = "audio"
PROTO_VERSION = 0
Encoding = plugins_pb2.AudioPluginData.Encoding


def create_summary_metadata(*, display_name: str = "", description: str = "") -> summary_pb2.SummaryMetadata:
    """Metadata written with the first audio clip of a tag.

    The data class stays unset on purpose: TensorBoard projects the ``[k, 2]`` tensor to
    its ``[k]`` clips only for audio whose data class it fills in itself.
    """
    content = plugins_pb2.AudioPluginData(version=PROTO_VERSION, encoding=Encoding.WAV).SerializeToString()
    return summary_metadata(
        PLUGIN_NAME,
        content,
        summary_pb2.DATA_CLASS_UNKNOWN,
        display_name=display_name,
        description=description,
    )
