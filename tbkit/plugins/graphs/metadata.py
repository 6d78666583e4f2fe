"""The graphs plugin's names and metadata.

Op graphs are not summaries: a serialized ``GraphDef`` goes in ``Event.graph_def`` and
TensorBoard shows it as the run graph (tag ``__run_graph__`` after its data migration).
A Keras model's conceptual graph is a summary: its ``model.to_json()`` string as a rank-0
string tensor under the plugin name ``graph_keras_model``, whose content is the version
string ``b"1"`` (the form TensorFlow's ``keras_model_summary`` writes; its metadata leaves
the data class unset, and TensorBoard reads the value as a one-blob sequence).
"""

from __future__ import annotations

from tbkit.plugins._metadata import summary_metadata
from tbkit.proto import summary_pb2

PLUGIN_NAME = "graphs"
PLUGIN_NAME_KERAS_MODEL = "graph_keras_model"
RUN_GRAPH_NAME = "__run_graph__"
KERAS_MODEL_CONTENT = b"1"
KERAS_TAG = "keras"


def create_keras_model_metadata(
    *, display_name: str = "", description: str = ""
) -> summary_pb2.SummaryMetadata:
    """Metadata written with a Keras model's JSON config (plugin ``graph_keras_model``, version 1).

    Example:
        >>> create_keras_model_metadata().plugin_data.content
        b'1'
    """
    return summary_metadata(
        PLUGIN_NAME_KERAS_MODEL,
        KERAS_MODEL_CONTENT,
        summary_pb2.DATA_CLASS_UNKNOWN,
        display_name=display_name,
        description=description,
    )
