"""``SummaryWriter``'s graph methods: thin wrappers over :mod:`tbkit.plugins.graphs`.

A mixin, so the writer facade stays small. Frameworks are imported only when a method
that needs them is called.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError
from tbkit.plugins.graphs.metadata import KERAS_TAG
from tbkit.plugins.graphs.summary import (
    graph_def_bytes,
    graph_event,
    is_graph_def,
    keras_model_json,
    keras_model_pb,
    torch_run_metadata_event,
)
from tbkit.writer._values import check_step, check_tag, check_walltime

if TYPE_CHECKING:
    from tbkit.writer.event_file import EventFileWriter


class GraphMethodsMixin:
    """``add_graph``, ``add_onnx_graph`` and ``add_keras_model`` for ``SummaryWriter``."""

    _writer: EventFileWriter

    def add_graph(
        self,
        model: Any,
        input_to_model: Any = None,
        verbose: bool = False,
        use_strict_trace: bool = True,
    ) -> None:
        """Write a model's op graph as the run graph (``Event.graph_def``), as torch does.

        Args:
            model: A ``torch.nn.Module`` to trace with ``torch.jit.trace``; its forward may
                return a tensor or dicts, lists and tuples of tensors (each tensor becomes
                an output node). Or a ready graph: a ``GraphDef`` message (tbkit's,
                TensorFlow's or TensorBoard's), its serialized bytes, or a ``tf.Graph``.
            input_to_model: The positional arguments for ``forward``: a tensor or a
                tuple or list of them.
            verbose: Print the traced TorchScript graph.
            use_strict_trace: ``torch.jit.trace``'s ``strict``; pass False to record
                mutable containers (lists, dicts) used inside the model.

        Names in the graph carry the module hierarchy as scopes (``Net/Linear[fc1]/linear``);
        see :mod:`tbkit.plugins.graphs.torch_graph` for the layout. After a module's graph, the
        empty ``step1`` run metadata torch writes follows, as in torch's files.

        Example:
            >>> writer.add_graph(model, torch.zeros(1, 3, 32, 32))  # doctest: +SKIP
        """
        self._writer._check()
        if is_graph_def(model):
            data = graph_def_bytes(model)
        else:
            try:
                from tbkit.plugins.graphs.torch_graph import torch_graph_def
            except ImportError as exc:
                raise MissingDependencyError("torch", feature="add_graph of a model") from exc
            import torch

            if not isinstance(model, torch.nn.Module):
                hint = " (for a Keras model use add_keras_model)" if hasattr(model, "to_json") else ""
                raise InvalidArgumentError(
                    f"add_graph expects a torch.nn.Module or a GraphDef, got {type(model).__name__}{hint}"
                )
            graph = torch_graph_def(model, input_to_model, verbose=verbose, strict=use_strict_trace)
            now = time.time()
            self._writer.add_event(graph_event(graph.SerializeToString(), now))
            self._writer.add_event(torch_run_metadata_event(now))
            return
        self._writer.add_event(graph_event(data, time.time()))

    def add_onnx_graph(self, prototxt: Any) -> None:
        """Write an ONNX model's op graph as the run graph; needs ``pip install onnx``.

        Args:
            prototxt: The ONNX model: a file path (torch's argument), serialized bytes,
                or an ``onnx.ModelProto``.

        Raises:
            MissingDependencyError: ``onnx`` is not installed.
        """
        self._writer._check()
        from tbkit.plugins.graphs.onnx_graph import onnx_graph_def

        data = onnx_graph_def(prototxt).SerializeToString()
        self._writer.add_event(graph_event(data, time.time()))

    def add_keras_model(
        self, model: Any, step: int = 0, tag: str = KERAS_TAG, walltime: float | None = None
    ) -> None:
        """Write a Keras model's conceptual graph, as Keras's TensorBoard callback does.

        The summary has tag ``keras`` and plugin ``graph_keras_model`` and holds
        ``model.to_json()`` as a rank-0 string tensor; TensorBoard's graph dashboard draws
        the layers from it. The Keras backend does not matter (torch, JAX or TensorFlow).

        Args:
            model: A Keras model that serializes to JSON (Sequential, functional, or a
                subclass implementing ``get_config``).
            step: The step to log at (Keras writes 0).
            tag: The summary tag.
            walltime: Seconds since the epoch; now by default.

        Raises:
            InvalidArgumentError: ``model`` has no ``to_json`` or cannot be serialized.

        Example:
            >>> model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])  # doctest: +SKIP
            >>> writer.add_keras_model(model)  # doctest: +SKIP
        """
        tag = check_tag(tag)
        summary = keras_model_pb(tag, keras_model_json(model))
        self._writer.add_summary(summary, check_step(step), check_walltime(walltime))
