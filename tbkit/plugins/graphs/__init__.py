"""The graphs plugin: op graphs (``Event.graph_def``) and Keras conceptual graphs."""
