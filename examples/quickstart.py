"""Quick start: write every kind of TensorBoard data with tbkit, then read it back.

    python examples/quickstart.py [LOGDIR]        # default: runs/quickstart
    tbkit serve --logdir runs/quickstart          # look at it in the browser
    tbkit report --logdir runs/quickstart -o report.html

No TensorFlow, no PyTorch: NumPy values only (PyTorch, TensorFlow and JAX values work too).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

import tbkit
from tbkit import SummaryWriter
from tbkit.proto.graph_pb2 import GraphDef


def write(logdir: Path) -> None:
    """Two runs with scalars, histograms, images, audio, text, PR curves, meshes, embeddings ..."""
    rng = np.random.default_rng(0)
    for lr in (0.1, 0.01):
        run = logdir / f"lr_{lr}"
        with SummaryWriter(str(run)) as w:
            for step in range(100):
                loss = math.exp(-lr * step / 5) + 0.02 * rng.standard_normal()
                w.add_scalar("train/loss", loss, step)  # scalars
                w.add_scalar("train/accuracy", 1 - loss / 2, step)
                if step % 25 == 0:
                    w.add_histogram("weights/dense", rng.normal(0, 1 + step / 100, 1000), step)  # histograms
                    w.add_image("samples/noise", rng.random((3, 32, 32)), step)  # images: CHW, in [0, 1]
                    tone = 0.3 * np.sin(2 * math.pi * (220 + step) * np.linspace(0, 0.5, 4000))
                    w.add_audio("samples/tone", tone, step, sample_rate=8000)  # audio
                    w.add_text("notes", f"step **{step}**, learning rate `{lr}`", step)  # Markdown text
                    labels = rng.integers(0, 2, 200)
                    scores = np.clip(labels * 0.6 + rng.random(200) * 0.4, 0, 1)
                    w.add_pr_curve("eval/pr", labels, scores, step)  # precision-recall curves
            w.add_tensor("eval/confusion", rng.integers(0, 50, (3, 3)), 100)  # any array
            vertices = rng.random((1, 8, 3))
            w.add_mesh("shapes/cube", vertices, global_step=100)  # 3-D meshes
            w.add_hparams({"lr": lr, "optimizer": "sgd"}, {"hparam/final_loss": loss})  # hparams
            w.add_embedding(rng.normal(size=(20, 4)), metadata=[f"point {i}" for i in range(20)])  # projector
            w.add_video("samples/video", rng.random((1, 4, 3, 16, 16)), 100, fps=2)  # an animated GIF
            w.add_graph(_graph())  # a model graph (a torch.nn.Module works too)
            w.add_trace(_trace())  # a profiler trace (Chrome trace-event JSON)
    with SummaryWriter(str(logdir)) as w:  # a layout of custom charts, for the whole logdir
        w.add_custom_scalars({"losses": {"loss": ["Multiline", ["train/loss"]]}})


def _graph() -> GraphDef:
    """A three-node GraphDef: x -> dense/MatMul -> dense/Relu."""
    graph = GraphDef()
    graph.node.add(name="x", op="Placeholder")
    graph.node.add(name="dense/MatMul", op="MatMul", input=["x"])
    graph.node.add(name="dense/Relu", op="Relu", input=["dense/MatMul"])
    return graph


def _trace() -> dict:
    """Two nested operations on one thread, in Chrome's trace-event format (times in µs)."""
    events = [
        {"name": "train_step", "ph": "X", "ts": 0, "dur": 900, "pid": 1, "tid": 1, "cat": "python"},
        {"name": "matmul", "ph": "X", "ts": 100, "dur": 600, "pid": 1, "tid": 1, "cat": "kernel"},
    ]
    return {"traceEvents": events}


def main() -> None:
    logdir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/quickstart")
    write(logdir)
    ld = tbkit.read(str(logdir))  # discovers runs now, reads data on first use
    print(ld.tags()[["run", "tag", "plugin", "count"]].to_string(index=False))
    scalars = ld.scalars()
    final = scalars[scalars.tag == "train/loss"].groupby("run", observed=True)["value"].last()
    print("final loss per run:", final.round(4).to_dict())
    print("hyperparameters:", ld.hparams()[["run", "lr", "optimizer"]].to_dict("records"))
    print(f"Wrote {logdir}; look at it with: tbkit serve --logdir {logdir}")


if __name__ == "__main__":
    main()
