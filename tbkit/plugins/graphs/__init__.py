"""The graphs plugin: op graphs (``Event.graph_def``), Keras conceptual graphs and tagged run metadata."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "graphs",
        "blob_sequence",
        decoder="tbkit.plugins.graphs.decode",
        event_field="graph_def",
        media_extension="pb",
        routes="tbkit.plugins.graphs.routes",
        dedicated_frame=True,
    ),
    Plugin(
        "graph_keras_model",
        "blob_sequence",
        decoder="tbkit.plugins.graphs.decode_keras",
        dedicated_frame=True,
    ),
    Plugin(
        "graph_tagged_run_metadata", "blob_sequence", event_field="tagged_run_metadata", dedicated_frame=True
    ),
)
