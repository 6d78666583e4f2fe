"""An ONNX model as a TensorBoard op graph (``GraphDef``); needs the optional ``onnx`` package.

Layout, in the spirit of :mod:`tbkit.plugins.graphs.torch_graph`:

- Graph inputs (those that are not initializers) are ``input/<name>`` and graph outputs
  ``output/<name>``, of op ``IO Node``, with ``dtype`` and ``_output_shapes``.
- Initializers (weights) are nodes of op ``Const`` named after the tensor, ``.`` read as a
  scope separator (``fc1.weight`` → ``fc1/weight``), with ``dtype`` and their shape.
- Each ONNX node is one NodeDef named after the node (leading ``/`` dropped, so torch's
  exported names ``/fc1/Gemm`` keep their scopes; ``<op_type>_<i>`` when unnamed), of op
  ``op_type`` (``domain::op_type`` outside the default domain). Its ONNX attributes become
  NodeDef attributes (ints, floats, strings and their lists; tensors and graphs as text)
  and ``_output_shapes`` comes from ONNX shape inference where it succeeds.
- Edges follow tensor names: ``name`` or ``name:k`` for the ``k``-th output of a node.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError, StorageError
from tbkit.proto import graph_pb2, tensor_shape_pb2, types_pb2

IO_OP = "IO Node"
CONST_OP = "Const"

# ONNX TensorProto.DataType → TensorFlow DataType.
_DTYPES = {
    1: types_pb2.DT_FLOAT,
    2: types_pb2.DT_UINT8,
    3: types_pb2.DT_INT8,
    4: types_pb2.DT_UINT16,
    5: types_pb2.DT_INT16,
    6: types_pb2.DT_INT32,
    7: types_pb2.DT_INT64,
    8: types_pb2.DT_STRING,
    9: types_pb2.DT_BOOL,
    10: types_pb2.DT_HALF,
    11: types_pb2.DT_DOUBLE,
    12: types_pb2.DT_UINT32,
    13: types_pb2.DT_UINT64,
    14: types_pb2.DT_COMPLEX64,
    15: types_pb2.DT_COMPLEX128,
    16: types_pb2.DT_BFLOAT16,
}


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as exc:
        raise MissingDependencyError("onnx", extra="onnx", feature="add_onnx_graph") from exc
    return onnx


def load_onnx_model(model: Any) -> Any:
    """An ``onnx.ModelProto`` from a file path, serialized bytes, or a ``ModelProto`` itself.

    Raises:
        MissingDependencyError: ``onnx`` is not installed (``pip install "tbkit[onnx]"``).
        StorageError: the file cannot be read.
        InvalidArgumentError: ``model`` is none of these or does not parse.
    """
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            return onnx.load(path)
        except OSError as exc:
            raise StorageError(f"cannot read the ONNX file ({exc.strerror or exc})", path=path) from exc
        except Exception as exc:  # onnx raises protobuf's DecodeError and others
            raise InvalidArgumentError(f"not an ONNX model: {path}: {exc}") from exc
    if isinstance(model, bytes | bytearray | memoryview):
        try:
            return onnx.load_from_string(bytes(model))
        except Exception as exc:
            raise InvalidArgumentError(f"not an ONNX model: {exc}") from exc
    raise InvalidArgumentError(f"expected an ONNX file path, bytes or ModelProto, got {type(model).__name__}")


def onnx_graph_def(model: Any) -> graph_pb2.GraphDef:
    """The op graph of an ONNX model (path, bytes or ``onnx.ModelProto``).

    Example:
        >>> onnx_graph_def("model.onnx").node[0].op  # doctest: +SKIP
        'IO Node'
    """
    onnx = _onnx()
    proto = load_onnx_model(model)
    # Shape inference is a bonus: shapes are left unknown where it fails.
    with contextlib.suppress(Exception):
        proto = onnx.shape_inference.infer_shapes(proto)
    return _convert(proto.graph)


def _value_shapes(graph: Any) -> dict[str, Any]:
    return {info.name: info.type for info in [*graph.input, *graph.value_info, *graph.output]}


def _shape(value_type: Any) -> tensor_shape_pb2.TensorShapeProto:
    if value_type is None or not value_type.HasField("tensor_type"):
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    tensor_type = value_type.tensor_type
    if not tensor_type.HasField("shape"):
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim]
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims]
    )


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[graph_pb2.NodeDef] = []
        self.taken: set[str] = set()
        self.refs: dict[str, str] = {}  # ONNX tensor name → NodeDef input reference

    def add(self, name: str, op: str, inputs: list[str]) -> graph_pb2.NodeDef:
        base = name.strip("/") or op
        candidate, n = base, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        node = graph_pb2.NodeDef(name=candidate, op=op, input=inputs)
        self.nodes.append(node)
        return node

    def inputs_of(self, names: Any) -> list[str]:
        return [self.refs[name] for name in names if name in self.refs]


def _convert(graph: Any) -> graph_pb2.GraphDef:
    types = _value_shapes(graph)
    out = _Builder()
    for init in graph.initializer:
        node = out.add(init.name.replace(".", "/"), CONST_OP, [])
        node.attr["dtype"].type = _DTYPES.get(init.data_type, types_pb2.DT_INVALID)
        shape = tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in init.dims]
        )
        node.attr["_output_shapes"].list.shape.append(shape)
        out.refs[init.name] = node.name
    for info in graph.input:
        if info.name in out.refs:
            continue  # an initializer also listed as an input (older exporters)
        node = out.add(f"input/{info.name}", IO_OP, [])
        _io_attrs(node, info.type)
        out.refs[info.name] = node.name
    for index, onnx_node in enumerate(graph.node):
        op = onnx_node.op_type if not onnx_node.domain else f"{onnx_node.domain}::{onnx_node.op_type}"
        node = out.add(onnx_node.name or f"{onnx_node.op_type}_{index}", op, out.inputs_of(onnx_node.input))
        for attribute in onnx_node.attribute:
            _set_attr(node.attr[attribute.name], attribute)
        shapes = [_shape(types.get(name)) for name in onnx_node.output]
        node.attr["_output_shapes"].list.shape.extend(shapes)
        for k, name in enumerate(onnx_node.output):
            if name:
                out.refs[name] = node.name if k == 0 else f"{node.name}:{k}"
    for info in graph.output:
        node = out.add(f"output/{info.name}", IO_OP, out.inputs_of([info.name]))
        _io_attrs(node, info.type)
    return graph_pb2.GraphDef(node=out.nodes, versions=graph_pb2.VersionDef(producer=22))


def _io_attrs(node: graph_pb2.NodeDef, value_type: Any) -> None:
    if value_type.HasField("tensor_type"):
        node.attr["dtype"].type = _DTYPES.get(value_type.tensor_type.elem_type, types_pb2.DT_INVALID)
    node.attr["_output_shapes"].list.shape.append(_shape(value_type))


def _set_attr(target: graph_pb2.AttrValue, attribute: Any) -> None:
    """Copy one ONNX ``AttributeProto`` into an ``AttrValue`` (types by ONNX's enum numbers)."""
    kind = attribute.type
    if kind == 1:  # FLOAT
        target.f = attribute.f
    elif kind == 2:  # INT
        target.i = attribute.i
    elif kind == 3:  # STRING
        target.s = attribute.s
    elif kind == 6:  # FLOATS
        target.list.f.extend(attribute.floats)
    elif kind == 7:  # INTS
        target.list.i.extend(attribute.ints)
    elif kind == 8:  # STRINGS
        target.list.s.extend(attribute.strings)
    elif kind == 4:  # TENSOR
        dims = "x".join(str(d) for d in attribute.t.dims) or "scalar"
        target.s = f"tensor {dims}".encode()
    else:  # graphs, sparse tensors, type protos: named only
        target.s = f"<{type(attribute).__name__} type {kind}>".encode()
