"""A demo log directory with every kind tbkit writes, for trying tbkit out."""

from __future__ import annotations

import math

import numpy as np

from tbkit.record import storage
from tbkit.writer.summary_writer import SummaryWriter


def write_demo_logdir(logdir: str, *, steps: int = 200, seed: int = 0) -> dict[str, list[str]]:
    """Write three demo runs of scalars, histograms, images, audio, text and tensors.

    Returns:
        For each run directory (relative to ``logdir``), the tags written.

    Example:
        >>> write_demo_logdir(tmp_dir)  # doctest: +SKIP
    """
    rng = np.random.default_rng(seed)
    written: dict[str, list[str]] = {}
    for run, lr in (("lr_0.1", 0.1), ("lr_0.03", 0.03), ("lr_0.01", 0.01)):
        tags: list[str] = []
        with SummaryWriter(storage.join(logdir, run)) as w:
            for step in range(steps):
                loss = math.exp(-lr * step / 10) + 0.05 * rng.standard_normal()
                w.add_scalar("train/loss", loss, step)
                w.add_scalar("train/accuracy", 1 - loss / 2, step)
                if step % 20 == 0:
                    w.add_histogram("weights/layer1", rng.normal(0, 1 + step / steps, 2000), step)
                    w.add_image("samples/noise", rng.random((3, 32, 32)), step)
                    t = np.linspace(0, 1, 8000)
                    w.add_audio(
                        "audio/tone", 0.5 * np.sin(2 * math.pi * (220 + step) * t), step, sample_rate=8000
                    )
                    w.add_text("notes", f"step **{step}**, learning rate `{lr}`", step)
            w.add_tensor("final/confusion", rng.integers(0, 100, (3, 3)), steps)
            tags = [
                "train/loss",
                "train/accuracy",
                "weights/layer1",
                "samples/noise",
                "audio/tone",
                "notes",
                "final/confusion",
            ]
        written[run] = tags
    return written
