"""Tracing a PyTorch module whatever its forward returns (imported only when torch is used).

``torch.jit.trace`` refuses dict outputs in strict mode, and TensorBoard cannot show a
tuple or dict value as one edge. The model is therefore wrapped so that its output is
flattened into a tuple of tensors (dict values in order, list and tuple items in order,
recursively; non-tensor leaves dropped) before tracing. The wrapper remembers a name for
every flattened tensor, used for the graph's output nodes.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from tbkit.errors import InvalidArgumentError

WRAPPED_ATTR = "model"


def flatten_outputs(value: Any) -> list[tuple[str, torch.Tensor]]:
    """``(name, tensor)`` for every tensor in a model output, in a stable order.

    A dict (or namedtuple) at the top names its tensors by their key paths joined with
    ``.`` (``"boxes"``, ``"aux.0"``); anything else names them ``output.1``, ``output.2`` …
    (torch's name for a single output).

    Example:
        >>> [n for n, _ in flatten_outputs({"a": torch.zeros(1), "b": [torch.ones(1), None]})]
        ['a', 'b.0']
    """
    found: list[tuple[tuple[str, ...], torch.Tensor]] = []
    _walk(value, (), found)
    if not found:
        raise InvalidArgumentError(f"the model's output holds no tensor (got {type(value).__name__})")
    if not _is_named(value):
        return [(f"output.{i + 1}", tensor) for i, (_, tensor) in enumerate(found)]
    names = [".".join(path).replace("/", "_") for path, _ in found]
    return list(zip(names, (tensor for _, tensor in found), strict=True))


def _is_named(value: Any) -> bool:
    return isinstance(value, Mapping) or (isinstance(value, tuple) and hasattr(value, "_fields"))


def _walk(value: Any, path: tuple[str, ...], found: list[tuple[tuple[str, ...], torch.Tensor]]) -> None:
    if isinstance(value, torch.Tensor):
        found.append((path, value))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _walk(item, (*path, str(key)), found)
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for key, item in zip(value._fields, value, strict=True):
            _walk(item, (*path, key), found)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _walk(item, (*path, str(index)), found)


class FlatOutputs(torch.nn.Module):
    """Wraps a module so that its forward returns a flat tuple of tensors.

    Attributes:
        output_names: The names of the flattened outputs of the last call.
    """

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        setattr(self, WRAPPED_ATTR, model)
        self.output_names: list[str] = []

    def forward(self, *args: Any) -> tuple[torch.Tensor, ...]:
        pairs = flatten_outputs(getattr(self, WRAPPED_ATTR)(*args))
        self.output_names = [name for name, _ in pairs]
        return tuple(tensor for _, tensor in pairs)


@dataclass(frozen=True)
class Traced:
    """A traced, inlined and tuple-lowered TorchScript graph and what is needed to name it.

    Attributes:
        graph: The ``torch._C.Graph``; its first input is the wrapper module.
        wrapper: The module that was traced (the user's model under ``WRAPPED_ATTR``).
        input_names: Names of the model's positional arguments (``forward``'s parameters).
        output_names: Names of the flattened outputs, one per graph output.
    """

    graph: Any
    wrapper: FlatOutputs
    input_names: list[str]
    output_names: list[str]


def as_args(input_to_model: Any) -> tuple[Any, ...]:
    """The positional arguments for the model: ``None`` → none, a tuple or list → its items, else one."""
    if input_to_model is None:
        return ()
    if isinstance(input_to_model, tuple | list):
        return tuple(input_to_model)
    return (input_to_model,)


def argument_names(model: torch.nn.Module, count: int) -> list[str]:
    """Names for ``count`` positional arguments of ``model.forward`` (``args.0`` … for ``*args``)."""
    names: list[str] = []
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    for parameter in parameters:
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
        elif parameter.kind == parameter.VAR_POSITIONAL:
            names.extend(f"{parameter.name}.{i}" for i in range(count - len(names)))
    names = names[:count]
    names.extend(f"input.{i}" for i in range(len(names), count))
    return names


@contextlib.contextmanager
def eval_mode(model: torch.nn.Module) -> Iterator[None]:
    """Put ``model`` in eval mode for the block, then restore its training flag."""
    training = model.training
    model.train(False)
    try:
        yield
    finally:
        model.train(training)


def trace(model: torch.nn.Module, input_to_model: Any, *, strict: bool = True) -> Traced:
    """Trace ``model`` on ``input_to_model`` with ``torch.jit.trace``, outputs flattened.

    Raises:
        InvalidArgumentError: ``model`` is not a ``torch.nn.Module``, or its output holds no tensor.
        RuntimeError: ``torch.jit.trace`` failed (the model cannot be traced on these inputs).
    """
    if not isinstance(model, torch.nn.Module):
        raise InvalidArgumentError(f"expected a torch.nn.Module, got {type(model).__name__}")
    args = as_args(input_to_model)
    wrapper = FlatOutputs(model)
    with eval_mode(model), warnings.catch_warnings():
        # torch 2.10+ marks TorchScript deprecated; tracing is still what exposes the
        # module scopes a graph needs, and torch.utils.tensorboard relies on it too.
        warnings.filterwarnings("ignore", r"`torch\.jit\.trace", DeprecationWarning)
        traced = torch.jit.trace(wrapper, args, strict=strict, check_trace=False)
    graph = traced.graph
    torch._C._jit_pass_inline(graph)
    # Removes the tuple plumbing the wrapper and module calls leave, so that every
    # flattened tensor becomes one graph output. A graph it cannot lower stays as it is.
    with contextlib.suppress(RuntimeError):
        torch._C._jit_pass_lower_all_tuples(graph)
    return Traced(graph, wrapper, argument_names(model, len(args)), list(wrapper.output_names))
