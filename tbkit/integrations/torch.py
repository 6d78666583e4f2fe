"""PyTorch helpers: watch a model's weights and gradients, log its graph and learning rates.

``import tbkit`` never imports this module nor torch; ``import tbkit.torch`` does both.

Example:
    >>> import tbkit, tbkit.torch  # doctest: +SKIP
    >>> writer = tbkit.SummaryWriter("runs/exp")  # doctest: +SKIP
    >>> handle = tbkit.torch.watch(model, writer, log="all", log_freq=100)  # doctest: +SKIP
    >>> for step, (x, y) in enumerate(loader):  # doctest: +SKIP
    ...     loss = loss_fn(model(x), y)
    ...     loss.backward()
    ...     optimizer.step()
    ...     optimizer.zero_grad()
    ...     tbkit.torch.log_learning_rates(optimizer, writer, step)
    >>> handle.remove()  # doctest: +SKIP
"""

from __future__ import annotations

import functools
import time
from typing import Any, Literal

import numpy as np

from tbkit.errors import MissingDependencyError
from tbkit.integrations._segments import HistogramBatch, ScalarEvents, SegmentBucketer
from tbkit.record.wire import event_head
from tbkit.writer.event_file import EventFileWriter
from tbkit.writer.summary_writer import NullSummaryWriter, SummaryWriter

try:
    import torch
except ImportError as exc:  # pragma: no cover - torch is a test dependency
    raise MissingDependencyError("torch", feature="tbkit.torch") from exc

__all__ = ["WatchHandle", "log_graph", "log_learning_rates", "watch"]

Log = Literal["gradients", "parameters", "all"]
_LOG_CHOICES = ("gradients", "parameters", "all")


def _copy(targets: list[Any], sources: list[Any]) -> None:
    """``target.copy_(source)`` for each pair, in one call where torch has ``_foreach_copy_``."""
    foreach = getattr(torch, "_foreach_copy_", None)
    if foreach is not None:
        foreach(targets, sources)
    else:  # pragma: no cover - every torch tbkit supports has it
        for target, source in zip(targets, sources, strict=True):
            target.copy_(source)


def _accumulator(param: Any) -> Any:
    """The ``AccumulateGrad`` node of a leaf that requires grad (None if it no longer does)."""
    with torch.enable_grad():
        grad_fn = param.view_as(param).grad_fn
    return None if grad_fn is None else grad_fn.next_functions[0][0]


class WatchHandle:
    """What :func:`watch` returns: the hooks, the step counter, ``remove()``.

    Attributes:
        step: The index of the model's current training forward call (the first is 0), the
            step at which histograms and norms are logged. Assign to it to follow your own
            step count; the next training forward adds one.
    """

    def __init__(self, model: Any, writer: SummaryWriter, log: Log, log_freq: int, prefix: str) -> None:
        self.step = -1
        self._writer = writer
        # A plain SummaryWriter's event file writer, fed directly (the values are checked here).
        events = getattr(writer, "_writer", None)
        plain = all(
            getattr(type(writer), m) is getattr(SummaryWriter, m) for m in ("add_scalar", "add_summary")
        )
        self._events = events if plain and isinstance(events, EventFileWriter) else None
        self._log_freq = log_freq
        self._prefix = prefix
        params = [(n, p) for n, p in model.named_parameters() if p.numel() > 0 and p.is_floating_point()]
        watched = params if log in ("parameters", "all") else []
        trainable = [(n, p) for n, p in params if p.requires_grad] if log != "parameters" else []
        # One CPU float32 buffer: the weights of a logged step, then each gradient, copied in
        # place (no allocation, one copy each); NumPy reads it without a conversion.
        self._tags = [f"{prefix}parameters/{n}" for n, _ in watched] + [
            f"{prefix}gradients/{n}" for n, _ in trainable
        ]
        self._sizes = [p.numel() for _, p in watched] + [p.numel() for _, p in trainable]
        self._buffer = torch.empty(sum(self._sizes), dtype=torch.float32)
        self._param_count = len(watched)
        self._params = [p for _, p in watched]
        self._trainable = [p for _, p in trainable]
        # Each segment of the buffer, flat and shaped as its tensor (for one foreach copy).
        bounds = np.cumsum([0, *self._sizes]).tolist()
        self._slots = [self._buffer[bounds[i] : bounds[i + 1]] for i in range(len(self._sizes))]
        shapes = [p.shape for p in [*self._params, *self._trainable]]
        shaped = [slot.view(shape) for slot, shape in zip(self._slots, shapes, strict=True)]
        self._param_views, self._grad_views = shaped[: len(watched)], shaped[len(watched) :]
        self._accumulators = [_accumulator(p) for p in self._trainable]  # what backward runs, per parameter
        # Per set of filled segments: their buffer views, Summary template and bucketer.
        self._layouts: dict[tuple[int, ...], tuple[Any, ...]] = {}
        self._filled: list[int] = []  # segments holding this logged step's data
        self._collecting = False  # a logged step waiting for its backward
        self._queued = False  # its end-of-backward callback is queued
        self._runs: list[bool] = []  # per trainable parameter: whether that backward reaches it
        self._output_hook: Any = None  # registered for a logged forward only
        self._grad_hooks: list[Any] = []  # registered for a logged step only: other steps pay nothing
        self._hooks = [model.register_forward_pre_hook(self._on_forward)]

    # -- hooks ---------------------------------------------------------------------------
    #
    # A logged step costs a few Python calls, whatever the number of parameters: a hook on the
    # model's output (registered by the logged forward's pre-hook) puts a hook on the output
    # tensors; that one runs when the backward starts and queues a callback that runs when it
    # ends, with every gradient accumulated. ``_will_engine_execute_node`` says, from inside
    # the backward, which parameters it gives a gradient. Other steps cost one pre-hook call.

    def _on_forward(self, module: Any, args: Any) -> None:
        if not module.training:
            return
        if self._grad_hooks or self._collecting or self._output_hook is not None:
            self._end_step()
        self.step += 1
        if self.step % self._log_freq:
            return
        if self._params:
            with torch.no_grad():
                _copy(self._param_views, self._params)
            self._filled = list(range(self._param_count))
        if self._trainable:
            self._collecting = True
            self._queued = False
            self._output_hook = module.register_forward_hook(self._on_output)  # runs after this forward
        else:
            self._write()

    def _on_output(self, module: Any, args: Any, output: Any) -> None:
        if self._output_hook is not None:
            self._output_hook.remove()  # safe: the module iterates over a copy of its hooks
            self._output_hook = None
        if not self._collecting or self._grad_hooks:
            return
        if isinstance(output, torch.Tensor):
            outputs = [output]
        elif isinstance(output, list | tuple):
            outputs = list(output)
        elif isinstance(output, dict):
            outputs = list(output.values())
        else:
            outputs = []
        tensors = [t for t in outputs if isinstance(t, torch.Tensor) and t.requires_grad]
        if tensors:  # the backward starts from (a function of) these
            self._grad_hooks = [t.register_hook(self._arm) for t in tensors]
        else:  # no tensor to hook (an output object): each parameter's accumulation arms it
            self._grad_hooks = [p.register_post_accumulate_grad_hook(self._arm) for p in self._trainable]

    def _arm(self, _: Any) -> None:
        """In the backward after a logged forward: queue ``_after_backward`` once."""
        if not self._collecting or self._queued:
            return
        self._queued = True
        will_run = torch._C._will_engine_execute_node
        runs = [will_run(node) for node in self._accumulators]
        for i in [i for i, ran in enumerate(runs) if not ran]:
            # Not reached, or a stale node: changing a parameter's dtype (``model.double()``)
            # gives it a new one. Look again.
            node = _accumulator(self._trainable[i])
            if node is not None and node is not self._accumulators[i]:
                self._accumulators[i] = node
                runs[i] = will_run(node)
        self._runs = runs
        torch.autograd.Variable._execution_engine.queue_callback(self._after_backward)

    def _after_backward(self) -> None:
        """Copy the gradients this backward accumulated (``param.grad``) and write the step."""
        if not self._collecting:
            return
        self._collecting = False
        grads = [p.grad for p in self._trainable]
        base = self._param_count
        with torch.no_grad():
            if all(self._runs) and not any(g is None or g.is_sparse for g in grads):
                _copy(self._grad_views, grads)
                self._filled.extend(range(base, base + len(grads)))
            else:
                for i, (runs, grad) in enumerate(zip(self._runs, grads, strict=True)):
                    if runs and grad is not None:
                        grad = grad.to_dense() if grad.is_sparse else grad
                        self._slots[base + i].copy_(grad.reshape(-1))
                        self._filled.append(base + i)
        self._write()  # the hooks stay until the next forward: removing them inside autograd is unsafe

    def _end_step(self) -> None:
        """Close a logged step: drop its hooks, write its weights if no backward followed."""
        for hook in self._grad_hooks:
            hook.remove()
        self._grad_hooks = []
        if self._output_hook is not None:  # the logged forward raised
            self._output_hook.remove()
            self._output_hook = None
        if self._collecting:
            self._collecting = False
            self._write()

    # -- writing -------------------------------------------------------------------------

    def _write(self) -> None:
        """Write histograms and norms of the segments filled in this step."""
        filled, self._filled = sorted(self._filled), []
        if not filled:
            return
        key = tuple(filled)
        state = self._layouts.get(key)
        if state is None:  # first time for this set of segments (normally: all of them)
            views = [self._slots[i] for i in filled]
            batch = HistogramBatch([self._tags[i] for i in filled])
            norm_tags = []
            for tag in batch.tags:
                kind, _, name = tag[len(self._prefix) :].partition("/")
                kind = "gradient_norms" if kind == "gradients" else "parameter_norms"
                norm_tags.append((f"{self._prefix}{kind}/{name}", kind == "gradient_norms"))
            if any(is_grad for _, is_grad in norm_tags):
                norm_tags.append((f"{self._prefix}gradient_norms/total", False))
            bucketer = SegmentBucketer([self._sizes[i] for i in filled])
            scalars = ScalarEvents([tag for tag, _ in norm_tags])
            state = self._layouts[key] = (views, batch, bucketer, norm_tags, scalars)
        views, batch, bucketer, norm_tags, scalars = state
        values = self._buffer.numpy() if len(filled) == len(self._sizes) else torch.cat(views).numpy()
        step, now = max(self.step, 0), time.time()
        events = self._events
        if events is not None and batch.sent_metadata:
            # Every tag's metadata is written: the writer's thread buckets and encodes a copy
            # of this step's values when it next writes, in parallel with training.
            job = functools.partial(self._encode, state, values.copy(), step, now)
            events.add_serialized_events(job, size=values.nbytes)
            return
        buckets, norms = self._measure(state, values)
        if events is not None:  # trusted values, already checked: no copy, no checks
            events.add_summary(batch.summary(buckets), step, now)
            add_scalar = events.add_scalar
        else:
            self._writer.add_summary(batch.summary(buckets), step, now)
            add_scalar = self._writer.add_scalar
        for (tag, _), norm in zip(norm_tags, norms, strict=True):
            add_scalar(tag, norm, step, now)

    @staticmethod
    def _measure(state: tuple[Any, ...], values: np.ndarray) -> tuple[np.ndarray, list[float]]:
        """The buckets and the norms (the total norm last, if any) of one step's values."""
        _, _, bucketer, norm_tags, _ = state
        norms = bucketer.norms(values).tolist()
        if len(norm_tags) > len(norms):  # the norm of all gradients together
            grads = [n for n, (_, is_grad) in zip(norms, norm_tags[:-1], strict=True) if is_grad]
            norms.append(sum(n * n for n in grads) ** 0.5)
        return bucketer(values), norms

    @staticmethod
    def _encode(state: tuple[Any, ...], values: np.ndarray, step: int, now: float) -> list[bytes]:
        """One step's serialized events, without metadata (run on the writer's thread)."""
        buckets, norms = WatchHandle._measure(state, values)
        batch, scalars = state[1], state[4]
        return [batch.event_bytes(buckets, step, now), *scalars.events(event_head(step, now), norms)]

    def remove(self) -> None:
        """Write what a logged step still holds and remove every hook. Calling it again does nothing."""
        self._end_step()
        for hook in self._hooks:
            hook.remove()
        self._hooks = []

    def __enter__(self) -> WatchHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


class _NullHandle(WatchHandle):
    """The handle of a rank that does not write: no hook at all."""

    def __init__(self) -> None:
        self.step = -1
        self._grad_hooks = []
        self._output_hook = None
        self._collecting = False
        self._hooks = []


def watch(
    model: Any, writer: SummaryWriter, log: Log = "gradients", log_freq: int = 100, *, prefix: str = ""
) -> WatchHandle:
    """Log histograms and L2 norms of a model's gradients and/or weights every ``log_freq`` steps.

    A step is one forward call of ``model`` in training mode (``model.training``; evaluation
    forwards are not counted). On steps 0, ``log_freq``, ``2·log_freq``, ... the weights are
    logged before the forward and the gradients when the first backward after that forward
    ends: each parameter's ``.grad`` as it stands then (accumulated as usual), for the
    parameters that backward reaches (one it does not reach is left out of that step). The
    backward is noticed through the forward's output tensors (or, for an output holding no
    tensor, through the parameters): a loss computed from something else leaves that step
    with weights only.
    Everything of a step is bucketed in one vectorised pass (TensorBoard's 30 buckets).

    Cost: an unlogged step pays one forward pre-hook call. A logged step copies the weights
    and gradients into one float32 buffer; with a plain ``SummaryWriter`` a copy of it is
    bucketed and encoded on the writer's background thread, overlapping training.

    Tags: histograms ``parameters/<name>`` and ``gradients/<name>``; scalars
    ``parameter_norms/<name>``, ``gradient_norms/<name>`` and ``gradient_norms/total`` (the
    norm of all gradients together, what ``clip_grad_norm_`` measures); all after ``prefix``.

    Args:
        model: A ``torch.nn.Module``.
        writer: The writer to log to. On a rank that does not write (``NullSummaryWriter``)
            no hook is registered.
        log: ``"gradients"``, ``"parameters"`` or ``"all"``.
        log_freq: Log every this many steps.
        prefix: Prepended to every tag (to watch several models with one writer).

    Returns:
        A :class:`WatchHandle`; ``handle.remove()`` writes what is pending and removes the hooks.

    Example:
        >>> handle = watch(model, writer, log="all", log_freq=10)  # doctest: +SKIP
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if log not in _LOG_CHOICES:
        raise ValueError(f"log must be one of {_LOG_CHOICES}, got {log!r}")
    if isinstance(log_freq, bool) or not isinstance(log_freq, int) or log_freq < 1:
        raise ValueError(f"log_freq must be a positive int, got {log_freq!r}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    if isinstance(writer, NullSummaryWriter):
        return _NullHandle()
    return WatchHandle(model, writer, log, log_freq, prefix)


def log_graph(model: Any, writer: SummaryWriter, input_to_model: Any, **kwargs: Any) -> None:
    """Write ``model``'s op graph (traced with ``input_to_model``); ``SummaryWriter.add_graph``.

    The module is traced in evaluation mode and put back in the mode it was in, so dropout
    and batch-norm statistics are untouched. ``kwargs`` go to ``add_graph``
    (``use_strict_trace``, ``verbose``).

    Example:
        >>> log_graph(model, writer, torch.zeros(1, 32))  # doctest: +SKIP
    """
    if isinstance(writer, NullSummaryWriter):
        return
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            writer.add_graph(model, input_to_model, **kwargs)
    finally:
        model.train(was_training)


def log_learning_rates(
    optimizer: Any, writer: SummaryWriter, step: int, *, prefix: str = "learning_rate"
) -> None:
    """Log each parameter group's learning rate as a scalar.

    The tag is ``prefix`` for an optimizer with one parameter group, else ``<prefix>/<name>``
    where ``name`` is the group's ``"name"`` entry if it has one, else ``group<i>``.

    Example:
        >>> log_learning_rates(optimizer, writer, step)  # doctest: +SKIP
    """
    groups = getattr(optimizer, "param_groups", None)
    if groups is None:
        raise TypeError(f"optimizer must have param_groups, got {type(optimizer).__name__}")
    if len(groups) == 1:
        writer.add_scalar(prefix, groups[0]["lr"], step)
        return
    for i, group in enumerate(groups):
        name = group.get("name")
        writer.add_scalar(
            f"{prefix}/{name if isinstance(name, str) and name else f'group{i}'}", group["lr"], step
        )
