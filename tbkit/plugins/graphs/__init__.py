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
        frames={
            "graphs": "tbkit.plugins.graphs.frames:graphs_frame",
            "graph_nodes": "tbkit.plugins.graphs.frames:graph_nodes_frame",
        },
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
