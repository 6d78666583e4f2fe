"""Helpers for the command-line tests: running ``tbkit`` as a subprocess, and a logdir of many kinds."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tbkit import SummaryWriter

XSS_RUN = 'x<img src=x onerror="alert(1)">'
XSS_TEXT = "hello <script>alert('text')</script> **bold** [link](javascript:alert(2))"


def run_tbkit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m tbkit.cli ARGS`` in a subprocess (progress bars off: output is not a terminal)."""
    full_env = {k: v for k, v in os.environ.items() if k != "TBKIT_PROGRESS"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "tbkit.cli", *args], capture_output=True, text=True, timeout=600, env=full_env
    )


def write_rich_logdir(root: Path) -> Path:
    """Two runs (one with a hostile name) of scalars (with NaN and ±inf), histograms, images,
    audio, text (with hostile Markdown), a PR curve, a tensor and hparams."""
    rng = np.random.default_rng(1)
    for run, offset in (("train", 0.0), (XSS_RUN, 0.5)):
        with SummaryWriter(str(root / run)) as w:
            for step in range(60):
                w.add_scalar("loss", math.exp(-step / 20) + offset, step)
                w.add_scalar("metrics/acc", step / 60, step)
                if step % 20 == 0:
                    w.add_histogram("weights", rng.normal(size=200), step)
                    w.add_image("picture", rng.random((3, 8, 12)), step)
                    w.add_audio("sound", np.sin(np.linspace(0, 40, 800)), step, sample_rate=8000)
                    w.add_text("notes", f"{XSS_TEXT} step {step}", step)
                    labels = rng.integers(0, 2, 50)
                    w.add_pr_curve("pr", labels, rng.random(50), step, num_thresholds=11)
            for step, value in ((60, math.nan), (61, math.inf), (62, -math.inf), (63, 0.25)):
                w.add_scalar("odd", value, step)
            w.add_tensor("matrix", np.arange(6).reshape(2, 3), 5)
            w.add_hparams({"lr": 0.1 + offset, "opt": "adam"}, {"hp/score": 1 - offset})
    return root
