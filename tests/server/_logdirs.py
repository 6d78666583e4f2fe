"""Fixture logdirs for the server tests: one written by tbkit, one by torch.utils.tensorboard.

Values are chosen so downsampling, smoothing and escaping can fail visibly: a long
scalar series with a spike, a NaN and an infinity; a constant series; runs and tags
whose names carry HTML; Markdown text carrying script and event-handler payloads.
"""

from __future__ import annotations

import math
import wave
from io import BytesIO
from pathlib import Path

import numpy as np

from tbkit import SummaryWriter
from tbkit.plugins.images.summary import image_pb
from tbkit.writer.event_file import EventFileWriter

XSS_RUN = "<img src=x onerror=alert(1)>"
XSS_TAG = "<script>alert('tag')</script>"
XSS_TEXT = (
    "**bold** <script>alert(1)</script> [click](javascript:alert(2)) "
    '<img src="x" onerror="alert(3)"> <a href="https://example.com" onclick="alert(4)">ok</a>'
)
LONG = 5000
SPIKE_STEP, NAN_STEP, INF_STEP = 1234, 2000, 3000


def long_series(n: int = LONG) -> np.ndarray:
    """A noisy decreasing series with a spike, a NaN and +inf at known steps."""
    rng = np.random.default_rng(7)
    values = np.exp(-np.arange(n) / 1500) + 0.01 * rng.standard_normal(n)
    values[SPIKE_STEP] = 100.0
    values[NAN_STEP] = math.nan
    values[INF_STEP] = math.inf
    return values


def _png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    buffer = BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def write_tbkit_logdir(root: Path) -> Path:
    """Runs ``train``, ``eval`` and one with an HTML name, with every kind the server shows."""
    rng = np.random.default_rng(3)
    with SummaryWriter(str(root / "train")) as w:
        for step, value in enumerate(long_series()):
            w.add_scalar("loss", float(value), step, walltime=1000.0 + step)
        for step in range(100):
            w.add_scalar("constant", 0.5, step, walltime=1000.0 + step)
        for step in range(5):
            w.add_histogram("weights", rng.normal(step, 1.0, 500), step, walltime=2000.0 + step)
            w.add_audio(
                "sound", np.sin(np.linspace(0, 40, 800)), step, sample_rate=8000, walltime=4000.0 + step
            )
            w.add_text("notes", f"step {step}: {XSS_TEXT}", step, walltime=5000.0 + step)
        w.add_text("table", np.array([["**a**", "<b onmouseover=alert(5)>b</b>"], ["c", "d"]]), 0)
    images = EventFileWriter(str(root / "train"))  # two images per step: a raw image summary
    for step in range(5):
        pictures = [_png(rng.integers(0, 255, (8, 6, 3), dtype=np.uint8)) for _ in range(2)]
        images.add_summary(image_pb("pictures", pictures, width=6, height=8), step, 3000.0 + step)
    images.close()
    with SummaryWriter(str(root / "eval")) as w:
        for step in range(100):
            w.add_scalar("loss", 1.0 / (step + 1), step * 50, walltime=1500.0 + step)
    with SummaryWriter(str(root / XSS_RUN)) as w:
        w.add_scalar(XSS_TAG, 1.0, 0, walltime=900.0)
    return root


def write_torch_logdir(root: Path) -> Path:
    """One run written by torch.utils.tensorboard: scalars, a histogram, an image, audio, text."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    rng = np.random.default_rng(5)
    writer = TorchWriter(str(root / "torch_run"))
    for step in range(300):
        writer.add_scalar("torch/loss", 1.0 / (step + 1), step)
    for step in range(3):
        writer.add_histogram("torch/hist", rng.normal(0, 1, 1000), step)
        writer.add_image("torch/image", rng.random((3, 10, 12)), step)
        writer.add_audio("torch/audio", np.sin(np.linspace(0, 20, 400)), step, sample_rate=16000)
        writer.add_text("torch/text", "torch *text* <script>x</script>", step)
    writer.close()
    return root


def wav_bytes(rate: int = 8000) -> bytes:
    """A short mono 16-bit WAV clip (for providers built by hand)."""
    buffer = BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * 100)
    return buffer.getvalue()
