"""Graph payloads: a ready ``GraphDef`` as ``Event.graph_def`` bytes, a Keras model as a summary.

Pure functions from values to protos; no I/O and no framework imports.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit._tensors import make_tensor_proto
from tbkit.errors import InvalidArgumentError
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.graphs.metadata import create_keras_model_metadata
from tbkit.proto import event_pb2, graph_pb2, summary_pb2


def is_graph_def(value: Any) -> bool:
    """Whether ``value`` is a ready graph: bytes, a ``GraphDef`` message, or has ``as_graph_def()``.

    Example:
        >>> is_graph_def(graph_pb2.GraphDef()), is_graph_def(object())
        (True, False)
    """
    if isinstance(value, bytes | bytearray | memoryview):
        return True
    if callable(getattr(value, "as_graph_def", None)):
        return True
    descriptor = getattr(value, "DESCRIPTOR", None)
    return (
        callable(getattr(value, "SerializeToString", None))
        and getattr(descriptor, "name", None) == "GraphDef"
    )


def graph_def_bytes(graph: Any) -> bytes:
    """The serialized ``GraphDef`` of ``graph``, checked to parse as one.

    Args:
        graph: Serialized bytes, any ``GraphDef`` message (tbkit's, TensorFlow's or
            TensorBoard's: anything with ``SerializeToString``), or an object with
            ``as_graph_def()`` such as a ``tf.Graph``.

    Raises:
        InvalidArgumentError: ``graph`` is none of these, or its bytes are not a ``GraphDef``.

    Example:
        >>> graph_def_bytes(graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="a", op="Const")]))
        b'\\n\\n\\n\\x01a\\x12\\x05Const'
    """
    if callable(getattr(graph, "as_graph_def", None)):
        graph = graph.as_graph_def()
    if isinstance(graph, bytes | bytearray | memoryview):
        data = bytes(graph)
    elif is_graph_def(graph):
        data = graph.SerializeToString()
    else:
        raise InvalidArgumentError(
            f"expected a GraphDef (message or serialized bytes), got {type(graph).__name__}"
        )
    try:
        graph_pb2.GraphDef.FromString(data)
    except DecodeError as exc:
        raise InvalidArgumentError(f"the bytes given are not a serialized GraphDef: {exc}") from exc
    return data


def graph_event(data: bytes, wall_time: float, step: int = 0) -> event_pb2.Event:
    """An ``Event`` carrying the serialized ``GraphDef`` ``data`` in its ``graph_def`` field."""
    return event_pb2.Event(wall_time=wall_time, step=step, graph_def=data)


# RunMetadata{step_stats: StepStats{dev_stats: [DeviceStepStats{device: "/device:CPU:0"}]}}:
# the empty profile torch writes beside every traced graph, tagged "step1".
_TORCH_RUN_METADATA = b"\n\x11\n\x0f\n\r/device:CPU:0"


def torch_run_metadata_event(wall_time: float) -> event_pb2.Event:
    """The ``TaggedRunMetadata`` event ``step1`` that torch's ``add_graph`` writes after the graph.

    It holds no timings; TensorBoard's graph dashboard lists it as the run's ``step1`` profile.
    """
    tagged = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=_TORCH_RUN_METADATA)
    return event_pb2.Event(wall_time=wall_time, tagged_run_metadata=tagged)


def keras_model_json(model: Any) -> str:
    """``model.to_json()``: the Keras model config TensorBoard draws as a conceptual graph.

    Raises:
        InvalidArgumentError: ``model`` has no ``to_json`` (not a Keras model) or it fails
            (subclassed models that do not implement ``get_config``).
    """
    to_json = getattr(model, "to_json", None)
    if not callable(to_json):
        raise InvalidArgumentError(f"expected a Keras model with to_json(), got {type(model).__name__}")
    try:
        text = to_json()
    except Exception as exc:  # Keras raises several types for models it cannot serialize
        raise InvalidArgumentError(f"the Keras model cannot be serialized to JSON: {exc}") from exc
    if not isinstance(text, str):
        raise InvalidArgumentError(f"model.to_json() returned {type(text).__name__}, not str")
    return text


def keras_model_pb(tag: str, model_json: str, *, with_metadata: bool = True) -> summary_pb2.Summary:
    """A ``Summary`` holding a Keras model config as a rank-0 string tensor (plugin ``graph_keras_model``).

    Example:
        >>> keras_model_pb("keras", '{"class_name": "Sequential"}').value[0].metadata.plugin_data.plugin_name
        'graph_keras_model'
    """
    tensor = make_tensor_proto(np.array(model_json, dtype=object))
    return tensor_summary(tag, tensor, create_keras_model_metadata() if with_metadata else None)
