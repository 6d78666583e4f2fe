"""The graphs plugin: op graphs (``Event.graph_def``) and Keras conceptual graphs."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "graphs",
        "blob_sequence",
        decoder="tbkit.plugins.graphs.decode",
        routes="tbkit.plugins.graphs.routes",
        dedicated_frame=True,
    ),
    Plugin(
        "graph_keras_model",
        "blob_sequence",
        decoder="tbkit.plugins.graphs.decode_keras",
        dedicated_frame=True,
    ),
    Plugin("graph_tagged_run_metadata", "blob_sequence", dedicated_frame=True),
)
