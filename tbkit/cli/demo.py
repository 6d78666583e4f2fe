"""A demo log directory with every kind tbkit writes, for trying tbkit out."""

from __future__ import annotations

import math
import time

import numpy as np

from tbkit.proto import graph_pb2
from tbkit.record import storage
from tbkit.writer.summary_writer import SummaryWriter

RUNS = (("lr_0.1", 0.1), ("lr_0.03", 0.03), ("lr_0.01", 0.01))
EMBEDDING_POINTS = 300
EMBEDDING_DIM = 16
CLASSES = ("cat", "dog", "bird")
BAND_TAGS = ("train/loss_band/lower", "train/loss_band/upper")
PR_EXAMPLES = 400
BATCHES = 8  # batches per logged step
BATCH_NOISE = 0.25  # log-normal spread of a batch's loss about the trend


def _loss_trend(lr: float, step: int) -> float:
    """The noise-free training loss of a run at ``step``: from 1 towards 0, faster with ``lr``."""
    return math.exp(-lr * step / 10)


def _demo_graph() -> graph_pb2.GraphDef:
    """A small two-layer network as a GraphDef, with name scopes (``layer1/...``)."""
    graph = graph_pb2.GraphDef()

    def node(name: str, op: str, *inputs: str) -> None:
        n = graph.node.add(name=name, op=op)
        n.input.extend(inputs)

    node("input", "Placeholder")
    for i, source in ((1, "input"), (2, "layer1/relu")):
        node(f"layer{i}/weights", "VariableV2")
        node(f"layer{i}/bias", "VariableV2")
        node(f"layer{i}/matmul", "MatMul", source, f"layer{i}/weights")
        node(f"layer{i}/add", "AddV2", f"layer{i}/matmul", f"layer{i}/bias")
        node(f"layer{i}/relu", "Relu", f"layer{i}/add")
    node("loss/softmax", "Softmax", "layer2/relu")
    node("loss/value", "Mean", "loss/softmax")
    return graph


def _demo_trace(lr: float) -> dict:
    """A few training steps as Chrome trace events (one forward/backward/optimizer per step)."""
    events = []
    t = 0.0
    for step in range(5):
        start = t
        for name, dur in (("forward", 400.0), ("backward", 700.0 * (1 + lr)), ("optimizer", 120.0)):
            events.append({"name": name, "ph": "X", "cat": "cpu_op", "ts": t, "dur": dur, "pid": 1, "tid": 1})
            for k in range(3):
                kernel = {"name": f"{name}_kernel{k}", "ph": "X", "cat": "kernel"}
                events.append({**kernel, "ts": t + 10 + k * dur / 3, "dur": dur / 4, "pid": 1, "tid": 2})
            t += dur + 20
        marker = {"name": f"ProfilerStep#{step}", "ph": "X", "pid": 1, "tid": 0}
        events.append({**marker, "ts": start, "dur": t - start})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def _confusion(rng: np.random.Generator, lr: float, step: int, per_class: int = 100) -> np.ndarray:
    """A confusion matrix over ``CLASSES`` (rows true, columns predicted) at the run's accuracy."""
    accuracy = 1 - _loss_trend(lr, step) / 2
    n = len(CLASSES)
    probs = np.full((n, n), (1 - accuracy) / (n - 1))
    np.fill_diagonal(probs, accuracy)
    return np.stack([rng.multinomial(per_class, row) for row in probs])


def write_demo_logdir(logdir: str, *, steps: int = 200, seed: int = 0) -> dict[str, list[str]]:
    """Write three demo runs with every kind: scalars to meshes, graphs, embeddings and traces.

    Returns:
        For each run directory (relative to ``logdir``), the tags written.

    Example:
        >>> write_demo_logdir(tmp_dir)  # doctest: +SKIP
    """
    rng = np.random.default_rng(seed)
    written: dict[str, list[str]] = {}
    for run, lr in RUNS:
        tags: list[str] = []
        with SummaryWriter(storage.join(logdir, run)) as w:
            for step in range(steps):
                # The step's loss is the mean over its batches (each a positive loss about the
                # trend); the margin chart's band is their spread, at the same step and wall time.
                batches = _loss_trend(lr, step) * np.exp(BATCH_NOISE * rng.standard_normal(BATCHES))
                loss, spread = float(batches.mean()), float(batches.std())
                wall = time.time()
                w.add_scalar("train/loss", loss, step, walltime=wall)
                w.add_scalar(BAND_TAGS[0], loss - spread, step, walltime=wall)
                w.add_scalar(BAND_TAGS[1], loss + spread, step, walltime=wall)
                w.add_scalar("train/accuracy", min(1.0, max(0.0, 1 - loss / 2)), step, walltime=wall)
                if step % 20 == 0:
                    w.add_histogram("weights/layer1", rng.normal(0, 1 + step / steps, 2000), step)
                    w.add_image("samples/noise", rng.random((3, 32, 32)), step)
                    t = np.linspace(0, 1, 8000)
                    w.add_audio(
                        "audio/tone", 0.5 * np.sin(2 * math.pi * (220 + step) * t), step, sample_rate=8000
                    )
                    w.add_text("notes", f"step **{step}**, learning rate `{lr}`", step)
            w.add_tensor("final/confusion", _confusion(rng, lr, steps - 1), steps)
            _write_rich(w, rng, lr, steps)
            tags = [
                "train/loss",
                "train/accuracy",
                "weights/layer1",
                "samples/noise",
                "audio/tone",
                "notes",
                "final/confusion",
                "pr/cat",
                "cloud/points",
                *BAND_TAGS,
            ]
        written[run] = tags
    return written


def _write_rich(w: SummaryWriter, rng: np.random.Generator, lr: float, steps: int) -> None:
    """The kinds with dashboards of their own: hparams, PR curve, custom scalars, mesh, graph,
    embedding and a profiler trace."""
    last = steps - 1
    final_loss = _loss_trend(lr, last)
    w.add_custom_scalars(
        {
            "training": {
                "losses": ["Multiline", [r"train/loss.*"]],
                "loss ± batch std": ["Margin", ["train/loss", *BAND_TAGS]],
            }
        }
    )
    # One validation set scored at each step: an example's difficulty is fixed, the classifier's
    # separation of the classes grows as the loss falls but stays finite, so the two score
    # distributions always overlap and every step's curve is a curve (a perfect one is two lines).
    labels = rng.integers(0, 2, PR_EXAMPLES)
    difficulty = rng.standard_normal(PR_EXAMPLES)
    for step in (0, last):
        separation = 0.2 + (1 - _loss_trend(lr, step))
        logits = separation * (2 * labels - 1) + difficulty
        w.add_pr_curve("pr/cat", labels, 1 / (1 + np.exp(-logits)), step)
    angle = np.linspace(0, 4 * math.pi, 200)
    vertices = np.stack([np.cos(angle), np.sin(angle), angle / (4 * math.pi)], axis=-1)[None] * (1 + lr)
    colors = np.stack([angle / angle.max(), 1 - angle / angle.max(), np.full_like(angle, 0.5)], -1) * 255
    w.add_mesh("cloud/points", vertices, colors=colors[None].astype(np.uint8), global_step=0)
    w.add_graph(_demo_graph())
    centers = rng.normal(0, 4, (len(CLASSES), EMBEDDING_DIM))
    classes = rng.integers(0, len(CLASSES), EMBEDDING_POINTS)
    points = centers[classes] + rng.normal(0, 1, (EMBEDDING_POINTS, EMBEDDING_DIM))
    w.add_embedding(points, metadata=[CLASSES[c] for c in classes], tag="features", global_step=last)
    w.add_hparams(
        {"lr": lr, "optimizer": "sgd" if lr > 0.02 else "adam", "layers": 2},
        {"hparam/final_loss": final_loss},
        global_step=last,
    )
    w.add_trace(_demo_trace(lr), session="demo", worker="worker0")
