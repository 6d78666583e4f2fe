"""Helpers shared by the plugins' ``metadata.py`` modules."""

from __future__ import annotations

from tbkit.proto import summary_pb2, tensor_pb2


def summary_metadata(
    plugin_name: str,
    content: bytes,
    data_class: summary_pb2.DataClass,
    *,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.SummaryMetadata:
    """A ``SummaryMetadata`` naming the plugin, its payload and the data class."""
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin_name, content=content),
        display_name=display_name,
        summary_description=description,
        data_class=data_class,
    )


def tensor_summary(
    tag: str, tensor: tensor_pb2.TensorProto, metadata: summary_pb2.SummaryMetadata | None
) -> summary_pb2.Summary:
    """A one-value ``Summary`` holding ``tensor`` (a TensorProto), with ``metadata`` if given."""
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if metadata is not None:
        value.metadata.CopyFrom(metadata)
    return summary_pb2.Summary(value=[value])
