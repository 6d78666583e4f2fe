"""The hparams plugin's name, tags and metadata (an ``HParamsPluginData`` per summary)."""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import hparams_pb2, summary_pb2

PLUGIN_NAME = "hparams"
PROTO_VERSION = 0
EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"


def create_summary_metadata(plugin_data: hparams_pb2.HParamsPluginData) -> summary_pb2.SummaryMetadata:
    """Metadata carrying ``plugin_data`` (the whole hparams payload lives in the metadata).

    Its data class is left unknown, as torch leaves it: TensorBoard's Python loader then gives
    the value (which carries no tensor) its empty tensor; with a data class it drops the value.
    """
    plugin_data.version = PROTO_VERSION
    return summary_metadata(PLUGIN_NAME, plugin_data.SerializeToString(), summary_pb2.DATA_CLASS_UNKNOWN)
