"""Read a logdir back with TensorBoard's own plugin EventAccumulator (TF-free) and with tbkit."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np

# TensorBoard's own switch to its TF stub (see tests/interop/_peers.py): TensorFlow is
# installed, and importing it would cost seconds in every process that reads event files.
sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))

from tensorboard.backend.event_processing import plugin_event_accumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


def tensorboard_runs(logdir: str | Path) -> dict[str, dict[str, list[str]]]:
    """``{run: {plugin: sorted tags}}`` as TensorBoard's plugin EventAccumulators see them."""
    root = Path(logdir)
    out: dict[str, dict[str, list[str]]] = {}
    for directory in sorted({p.parent for p in root.rglob("events.out.tfevents.*")}):
        acc = plugin_event_accumulator.EventAccumulator(str(directory), size_guidance={"tensors": 0})
        acc.Reload()
        run = directory.relative_to(root).as_posix()
        out[run] = {plugin: sorted(acc.PluginTagToContent(plugin)) for plugin in acc.ActivePlugins()}
    return out


def tensorboard_tensors(run_dir: str | Path, tag: str) -> list[tuple[int, np.ndarray]]:
    """``(step, array)`` of every value of ``tag`` in one run, decoded by TensorBoard."""
    acc = plugin_event_accumulator.EventAccumulator(str(run_dir), size_guidance={"tensors": 0})
    acc.Reload()
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]
