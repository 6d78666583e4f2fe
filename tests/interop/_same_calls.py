"""One fixed set of ``SummaryWriter`` calls, made the same way on tbkit's and torch's writers.

The interop tests write a run with each writer through :func:`make_calls` and compare what
TensorBoard reads back against :data:`EXPECTED` (and against each other).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

import tbkit

WALL0 = 1_700_000_000.0
"""Explicit wall times are ``WALL0 + step`` so that they can be compared exactly."""

SCALARS = {"loss": [2.5, 1.25, 0.625, 0.3125], "metrics/acc": [0.1, 0.4, 0.7, 0.9]}
MULTI = {"train": [1.0, 2.0, 3.0], "val": [0.5, 1.5, 2.5]}
AUDIO_RATE = 8000


def sine(rate: int = AUDIO_RATE, seconds: float = 0.05, freq: float = 440.0) -> np.ndarray:
    """A mono float sine clip in [-0.8, 0.8]."""
    t = np.arange(int(rate * seconds)) / rate
    return (0.8 * np.sin(2 * math.pi * freq * t)).astype(np.float32)


def gradient(h: int, w: int, c: int) -> np.ndarray:
    """A float HWC image in [0, 1] whose pixels all differ a little."""
    y, x, ch = np.meshgrid(np.arange(h), np.arange(w), np.arange(c), indexing="ij")
    return ((x * 7 + y * 13 + ch * 50) % 256 / 255.0).astype(np.float32)


def hist_values() -> np.ndarray:
    """Deterministic values with the extremes on 0 and 10 and every unit bucket filled."""
    rng = np.random.default_rng(7)
    return np.concatenate([[0.0, 10.0], rng.uniform(0.0, 10.0, 500), np.arange(10) + 0.5])


HIST_EDGES = np.arange(11, dtype=np.float64)  # 0, 1, ..., 10


def images() -> dict[str, tuple[np.ndarray, str, np.ndarray]]:
    """tag -> (array as logged, dataformats, expected RGB(A) pixels as uint8 HWC)."""
    g3 = gradient(6, 9, 3)
    g4 = gradient(5, 7, 4)
    g1 = gradient(4, 6, 1)[..., 0]
    u8 = (np.arange(5 * 8 * 3).reshape(5, 8, 3) * 3 % 256).astype(np.uint8)
    to_u8 = lambda a: np.clip(a.astype(np.float32) * 255.0, 0, 255).astype(np.uint8)  # noqa: E731
    gray = lambda a: np.repeat(a[..., None], 3, axis=2)  # noqa: E731
    return {
        "img/chw_float_rgb": (np.transpose(g3, (2, 0, 1)).copy(), "CHW", to_u8(g3)),
        "img/hwc_uint8_rgb": (u8, "HWC", u8),
        "img/hwc_float_rgba": (g4, "HWC", to_u8(g4)),
        "img/hw_float_gray": (g1, "HW", gray(to_u8(g1))),
        "img/chw_uint8_gray": (to_u8(g1)[None], "CHW", gray(to_u8(g1))),
    }


def batch_nchw() -> np.ndarray:
    """Ten 3×4×5 images: a grid of two rows, eight per row."""
    return np.stack(
        [
            np.full((3, 4, 5), i / 10.0, np.float32) + gradient(4, 5, 3).transpose(2, 0, 1) * 0.05
            for i in range(10)
        ]
    )


def figure() -> Any:
    """A small deterministic matplotlib figure (Agg)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1.5), dpi=50)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [0, 1, 4], color="red")
    ax.set_axis_off()
    return fig


TEXT = {"notes/md": ["**step** zero", "a `code` line", "line <b>two</b>"]}


def make_calls(writer: Any) -> None:
    """Log the fixed data set through ``writer`` (tbkit's or torch's ``SummaryWriter``)."""
    for tag, values in SCALARS.items():
        for step, value in enumerate(values):
            writer.add_scalar(tag, value, global_step=step, walltime=WALL0 + step)
    for step in range(3):
        writer.add_scalars("multi", {k: v[step] for k, v in MULTI.items()}, step, walltime=WALL0 + step)
    values = hist_values()
    writer.add_histogram("hist/default", values, 1, walltime=WALL0 + 1)
    writer.add_histogram("hist/int", values, 1, bins=5, walltime=WALL0 + 1)
    writer.add_histogram("hist/edges", values, 1, bins=HIST_EDGES, walltime=WALL0 + 1)
    for step, (tag, (array, fmt, _)) in enumerate(images().items()):
        writer.add_image(tag, array, step, walltime=WALL0 + step, dataformats=fmt)
    batch = batch_nchw()
    writer.add_images("imgs/nchw", batch, 2, walltime=WALL0 + 2)
    writer.add_images("imgs/nhwc", batch.transpose(0, 2, 3, 1), 3, walltime=WALL0 + 3, dataformats="NHWC")
    writer.add_figure("fig", figure(), 4, walltime=WALL0 + 4)
    writer.add_audio("audio/sine", sine(), 5, sample_rate=AUDIO_RATE, walltime=WALL0 + 5)
    for tag, texts in TEXT.items():
        for step, text in enumerate(texts):
            writer.add_text(tag, text, step, walltime=WALL0 + step)


# -- a run restarted with purge_step ----------------------------------------------------


def _next_second() -> None:
    """Sleep into the next wall-clock second: event files sort by the second they were made in."""
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.02)


def write_restarted_run(logdir: Path, *, first_purge_step: int | None = None) -> None:
    """Steps 0-9 (value = step), then a restart with ``purge_step=5`` writing 5-7 (value = 100 + step)."""
    with tbkit.SummaryWriter(logdir, purge_step=first_purge_step) as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step), step, walltime=WALL0 + step)
            writer.add_text("note", f"old {step}", step, walltime=WALL0 + step)
    _next_second()
    with tbkit.SummaryWriter(logdir, purge_step=5) as writer:
        for step in range(5, 8):
            writer.add_scalar("loss", 100.0 + step, step, walltime=WALL0 + 100 + step)


def write_restarted_run_torch(logdir: Path) -> None:
    """The same calls as :func:`write_restarted_run`, through ``torch.utils.tensorboard``."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    writer = TorchWriter(str(logdir))
    for step in range(10):
        writer.add_scalar("loss", float(step), step, walltime=WALL0 + step)
        writer.add_text("note", f"old {step}", step, walltime=WALL0 + step)
    writer.close()
    _next_second()
    writer = TorchWriter(str(logdir), purge_step=5)
    for step in range(5, 8):
        writer.add_scalar("loss", 100.0 + step, step, walltime=WALL0 + 100 + step)
    writer.close()


RESTARTED_EXPECTED = [(s, float(s)) for s in range(5)] + [(s, 100.0 + s) for s in range(5, 8)]
