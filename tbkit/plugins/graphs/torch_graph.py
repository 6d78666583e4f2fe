"""A PyTorch module as a TensorBoard op graph (``GraphDef``), through ``torch.jit.trace``.

The layout follows what ``torch.utils.tensorboard`` writes, so the graph dashboard groups
and labels it the same way:

- Name scopes carry the module hierarchy: the root is the model's class name, each
  submodule adds ``Class[attribute]`` (``Net/Sequential[block]/Linear[0]``).
- An op node is named ``<scope>/<op>`` after its TorchScript kind without the namespace
  (``Net/Linear[fc1]/linear``; ``_1``, ``_2`` … when an op repeats in a scope); its
  ``op`` is the full kind (``aten::linear``, ``prim::Constant``).
- Each parameter or buffer read is one node ``<module scope>/<attribute>`` of op
  ``prim::GetAttr`` with the tensor's shape (torch writes one per use, without shape).
- Inputs are ``input/<argument name>`` and outputs ``output/output.<n>`` (or
  ``output/<key path>`` for a dict output), both of op ``IO Node``.
- A constant is placed in the scope of the op reading it (one node per scope: tracing
  pools equal constants across modules).
- Edges are ``NodeDef.input`` names, ``name:k`` for the ``k``-th output of a node with
  several outputs (one node per TorchScript node, unlike torch's one per output value).
- Attributes: ``_output_shapes`` (a list with one ``TensorShapeProto`` per output;
  unknown rank for non-tensors, ``-1`` for unknown sizes) and ``attr`` (the node's
  TorchScript attributes as text, without quotes).
"""

from __future__ import annotations

from typing import Any

import torch

from tbkit._tensors import shape_proto
from tbkit.plugins.graphs.torch_trace import WRAPPED_ATTR, Traced, trace
from tbkit.proto import graph_pb2, tensor_shape_pb2

IO_OP = "IO Node"
GETATTR_OP = "prim::GetAttr"
CONSTANT_OP = "prim::Constant"
PRODUCER_VERSION = 22  # the GraphDef producer torch.utils.tensorboard writes
_MODULE_PREFIX = "__module."
_MAX_ATTR_CHARS = 200


def torch_graph_def(
    model: torch.nn.Module, input_to_model: Any = None, *, verbose: bool = False, strict: bool = True
) -> graph_pb2.GraphDef:
    """Trace ``model`` on ``input_to_model`` and return its op graph.

    Args:
        model: The module to draw; its forward may return a tensor, or dicts, lists and
            tuples of tensors (flattened into one output node per tensor).
        input_to_model: The positional arguments for ``forward``: a tensor, a tuple or
            list of them, or None for none.
        verbose: Print the traced TorchScript graph.
        strict: ``torch.jit.trace``'s ``strict``; False records mutable containers.

    Example:
        >>> net = torch.nn.Sequential(torch.nn.Linear(4, 2))
        >>> [n.name for n in torch_graph_def(net, torch.zeros(3, 4)).node][-2:]
        ['Sequential/Linear[0]/linear', 'output/output.1']
    """
    traced = trace(model, input_to_model, strict=strict)
    if verbose:
        print(traced.graph)
    return _Converter(traced).convert()


class _Converter:
    """One pass over a traced graph, building NodeDefs in graph order."""

    def __init__(self, traced: Traced) -> None:
        self.traced = traced
        model = getattr(traced.wrapper, WRAPPED_ATTR)
        self.root = type(model).__name__
        self.scopes = module_scopes(model)
        self.nodes: list[graph_pb2.NodeDef] = []
        self.taken: set[str] = set()
        self.refs: dict[int, str] = {}  # Value.unique() → NodeDef input reference
        self.modules: dict[int, tuple[str, ...]] = {}  # Value.unique() → module attribute path
        self.params: dict[tuple[str, ...], str] = {}  # attribute path → node name
        self.constants: dict[int, Any] = {}  # Value.unique() → its prim::Constant node, not yet placed
        self.placed: dict[tuple[int, str], str] = {}  # (Value.unique(), scope) → constant node name

    def convert(self) -> graph_pb2.GraphDef:
        graph = self.traced.graph
        self._inputs(list(graph.inputs()))
        for node in graph.nodes():
            if node.kind() == GETATTR_OP:
                self._getattr(node)
            elif node.kind() == CONSTANT_OP and node.outputsSize() == 1:
                self.constants[node.output().unique()] = node
            else:
                self._op(node)
        self._outputs(list(graph.outputs()))
        return graph_pb2.GraphDef(node=self.nodes, versions=graph_pb2.VersionDef(producer=PRODUCER_VERSION))

    def _unique(self, name: str) -> str:
        candidate, n = name, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{name}_{n}"
        self.taken.add(candidate)
        return candidate

    def _add(self, name: str, op: str, inputs: list[str], shapes: list[Any], attr: str = "") -> str:
        node = graph_pb2.NodeDef(name=self._unique(name), op=op, input=inputs)
        if shapes:
            node.attr["_output_shapes"].list.shape.extend(shapes)
        if attr:
            node.attr["attr"].s = attr.encode("utf-8")
        self.nodes.append(node)
        return node.name

    def _inputs(self, values: list[Any]) -> None:
        self_value, *args = values
        self.modules[self_value.unique()] = ()
        names = self.traced.input_names
        if len(names) != len(args):
            names = [v.debugName() for v in args]
        for value, name in zip(args, names, strict=True):
            if value.uses():  # unused inputs are left out, as torch does
                self.refs[value.unique()] = self._add(f"input/{name}", IO_OP, [], [value_shape(value)])

    def _getattr(self, node: Any) -> None:
        owner = self.modules.get(node.input().unique())
        output = node.output()
        if owner is None:  # an attribute of something that is not a module: an ordinary op
            self._op(node)
            return
        path = (*owner, node.s("name"))
        if output.type().kind() == "ClassType":
            self.modules[output.unique()] = path
            return
        name = self.params.get(path)
        if name is None:
            tensor = _resolve(self.traced.wrapper, path)
            shape = _tensor_shape(tensor) if isinstance(tensor, torch.Tensor) else value_shape(output)
            scope = self.scopes.get(".".join(owner[1:]), self.root)
            name = self.params[path] = self._add(f"{scope}/{path[-1]}", GETATTR_OP, [], [shape])
        self.refs[output.unique()] = name

    def _op(self, node: Any) -> None:
        outputs = list(node.outputs())
        kind = node.kind()
        scope = self._scope(node.scopeName())
        name = self._add(
            f"{scope}/{kind.split('::')[-1]}",
            kind,
            self._refs(node.inputs(), scope),
            [value_shape(v) for v in outputs],
            format_attributes(node),
        )
        for index, value in enumerate(outputs):
            self.refs[value.unique()] = name if index == 0 else f"{name}:{index}"

    def _refs(self, values: Any, scope: str) -> list[str]:
        """Input references of a node in ``scope``; constants are placed in the reader's scope.

        Tracing pools equal constants across modules; giving each scope its own copy keeps
        edges inside their module, as in torch's graphs.
        """
        refs = []
        for value in values:
            key = value.unique()
            if key in self.constants:
                name = self.placed.get((key, scope))
                if name is None:
                    node = self.constants[key]
                    name = self._add(
                        f"{scope}/{CONSTANT_OP.split('::')[-1]}",
                        CONSTANT_OP,
                        [],
                        [value_shape(value)],
                        format_attributes(node),
                    )
                    self.placed[(key, scope)] = name
                refs.append(name)
            elif key in self.refs:
                refs.append(self.refs[key])
        return refs

    def _outputs(self, values: list[Any]) -> None:
        names = self.traced.output_names
        if len(names) != len(values):
            names = [f"output.{i + 1}" for i in range(len(values))]
        for value, name in zip(values, names, strict=True):
            self._add(f"output/{name}", IO_OP, self._refs([value], self.root), [value_shape(value)])

    def _scope(self, scope_name: str) -> str:
        """The name scope of a TorchScript scope such as ``__module.model/__module.model.fc1``."""
        last = scope_name.rsplit("/", 1)[-1]
        if not last.startswith(_MODULE_PREFIX):
            return self.root
        path = last[len(_MODULE_PREFIX) :].split(".", 1)  # drops the wrapper's attribute
        return self.scopes.get(path[1] if len(path) > 1 else "", self.root)


def module_scopes(model: torch.nn.Module) -> dict[str, str]:
    """Name scope of every submodule by dotted path: ``{"": "Net", "fc1": "Net/Linear[fc1]"}``."""
    scopes = {"": type(model).__name__}
    for path, module in model.named_modules(remove_duplicate=False):
        if path:
            parent, _, leaf = path.rpartition(".")
            scopes[path] = f"{scopes[parent]}/{type(module).__name__}[{leaf}]"
    return scopes


def _resolve(root: torch.nn.Module, path: tuple[str, ...]) -> Any:
    value: Any = root
    for part in path:
        value = getattr(value, part, None)
    return value


def _tensor_shape(tensor: torch.Tensor) -> tensor_shape_pb2.TensorShapeProto:
    return shape_proto(tuple(tensor.shape))


def value_shape(value: Any) -> tensor_shape_pb2.TensorShapeProto:
    """The shape of a TorchScript value: its sizes (``-1`` unknown), or unknown rank."""
    kind = value.type()
    sizes = kind.varyingSizes() if isinstance(kind, torch._C.TensorType) else None
    if sizes is None:
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    return shape_proto(tuple(-1 if size is None else size for size in sizes))


def format_attributes(node: Any) -> str:
    """A node's TorchScript attributes as ``{name: value, …}`` text, quotes left out."""
    names = node.attributeNames()
    if not names:
        return ""
    parts = []
    for name in names:
        try:
            value = getattr(node, node.kindOf(name))(name)
        except Exception:  # an attribute kind without a Python getter
            value = "?"
        parts.append(f"{name}: {_short(value)}")
    return "{" + ", ".join(parts) + "}"


def _short(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        text = str(value.tolist()) if value.numel() <= 16 else f"tensor(shape={list(value.shape)})"
    else:
        text = str(value)
    text = text.replace("'", "").replace('"', "")
    return text if len(text) <= _MAX_ATTR_CHARS else text[: _MAX_ATTR_CHARS - 1] + "…"
