"""Helpers for the interop tests: TensorBoard's readers without TensorFlow, WAV and PNG decoding."""

from __future__ import annotations

import io
import sys
import types
import wave
from pathlib import Path

import numpy as np

# TensorBoard's documented switch (its ``no_tensorflow`` build target) to use its own TF stub:
# TensorFlow is installed here, and importing it would cost seconds and memory in every
# process that reads event files through TensorBoard. Only the one TF test imports it.
sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))

from tensorboard.backend.event_processing import event_accumulator, plugin_event_accumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

KEEP_ALL = {
    event_accumulator.COMPRESSED_HISTOGRAMS: 0,
    event_accumulator.IMAGES: 0,
    event_accumulator.AUDIO: 0,
    event_accumulator.SCALARS: 0,
    event_accumulator.HISTOGRAMS: 0,
    event_accumulator.TENSORS: 0,
}


def accumulate(path: str | Path) -> event_accumulator.EventAccumulator:
    """TensorBoard's ``EventAccumulator`` over a run directory or one file, everything kept."""
    acc = event_accumulator.EventAccumulator(str(path), size_guidance=KEEP_ALL)
    acc.Reload()
    return acc


def accumulate_plugin(path: str | Path) -> plugin_event_accumulator.EventAccumulator:
    """TensorBoard's plugin ``EventAccumulator`` (legacy forms migrated to tensors), everything kept."""
    acc = plugin_event_accumulator.EventAccumulator(str(path), size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def tensor_values(acc: event_accumulator.EventAccumulator, tag: str) -> list[tuple[int, float, np.ndarray]]:
    """``(step, wall_time, array)`` of every tensor event of ``tag``, decoded by TensorBoard."""
    return [(e.step, e.wall_time, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def decode_wav(data: bytes) -> tuple[int, int, np.ndarray]:
    """``(sample_rate, channels, int16 frames × channels)`` of a 16-bit PCM WAV, by the stdlib."""
    with wave.open(io.BytesIO(data), "rb") as wav:
        assert wav.getsampwidth() == 2, wav.getsampwidth()
        channels = wav.getnchannels()
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").reshape(-1, channels)
        return wav.getframerate(), channels, frames


def decode_png(data: bytes, mode: str = "RGB") -> np.ndarray:
    """Decode an encoded image to a uint8 array in ``mode`` (RGB by default)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG", image.format
        return np.asarray(image.convert(mode))


def pcm16(samples: np.ndarray) -> np.ndarray:
    """What 16-bit PCM should hold for float samples: clipped to [-1, 1], times 32767."""
    return (np.clip(samples.astype(np.float64), -1, 1) * 32767).reshape(len(samples), -1)
