"""Audio summaries: samples to 16-bit PCM WAV in a TF1 ``Summary.Audio`` (torch's) or a ``[k, 2]`` tensor."""

from __future__ import annotations

import struct

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.audio.metadata import create_summary_metadata
from tbkit.proto import summary_pb2

MAX_CHANNELS = 8


def clip_samples(samples: np.ndarray, *, name: str = "samples") -> np.ndarray:
    """Samples as ``frames`` or ``frames × channels`` floats in [-1, 1] (not yet clipped).

    Accepts ``(L,)``, ``(1, L)`` or ``(C, L)`` (channels first, as torch's ``(1, L)``) and
    ``(L, C)``, with at most ``MAX_CHANNELS`` channels; integer samples are scaled by their
    dtype's range.

    Raises:
        ValueError: The shape is none of those, or empty.
        TypeError: The samples are not numbers.
    """
    if samples.ndim == 2 and samples.shape[0] <= MAX_CHANNELS < samples.shape[1]:
        samples = samples.T  # (C, L), channels first
    if (
        samples.ndim not in (1, 2)
        or samples.size == 0
        or (samples.ndim == 2 and samples.shape[1] > MAX_CHANNELS)
    ):
        raise ValueError(
            f"{name} must have shape (L,), (C, L) or (L, C) with at most {MAX_CHANNELS} channels, "
            f"got {samples.shape}"
        )
    if samples.dtype.kind in "iu":
        return samples / float(np.iinfo(samples.dtype).max)
    if samples.dtype.kind != "f":
        raise TypeError(f"{name} must be numeric, got dtype {samples.dtype}")
    return samples


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """Encode float samples in [-1, 1] (``frames`` or ``frames × channels``) as 16-bit PCM WAV.

    Values outside [-1, 1] are clipped.

    Example:
        >>> encode_wav(np.zeros(10), 8000)[:4]
        b'RIFF'
    """
    arr = samples.reshape(-1, 1) if samples.ndim == 1 else samples
    channels = arr.shape[1]
    pcm = (np.clip(arr.astype(np.float64), -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(pcm),
        b"WAVE",
        b"fmt ",
        16,
        1,  # PCM
        channels,
        sample_rate,
        sample_rate * channels * 2,
        channels * 2,
        16,
        b"data",
        len(pcm),
    )
    return header + pcm


def audio_pb(
    tag: str,
    clips: list[bytes],
    labels: list[str] | None = None,
    *,
    with_metadata: bool = True,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.Summary:
    """An audio ``Summary`` of encoded WAV ``clips`` with optional Markdown ``labels``."""
    labels = labels or [""] * len(clips)
    items = np.empty((len(clips), 2), dtype=object)
    for i, (clip, label) in enumerate(zip(clips, labels, strict=True)):
        items[i, 0] = clip
        items[i, 1] = label.encode("utf-8")
    meta = (
        create_summary_metadata(display_name=display_name, description=description) if with_metadata else None
    )
    return tensor_summary(tag, make_tensor_proto(items), meta)


def legacy_audio_pb(tag: str, samples: np.ndarray, sample_rate: int) -> summary_pb2.Summary:
    """A TF1 ``Summary.Audio`` of one WAV clip of ``samples`` (from :func:`clip_samples`), as torch writes it.

    Example:
        >>> legacy_audio_pb("a", np.zeros(8), 8000).value[0].audio.length_frames
        8
    """
    frames = samples.shape[0]
    channels = 1 if samples.ndim == 1 else samples.shape[1]
    audio = summary_pb2.Summary.Audio(
        sample_rate=float(sample_rate),
        num_channels=channels,
        length_frames=frames,
        encoded_audio_string=encode_wav(samples, sample_rate),
        content_type="audio/wav",
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, audio=audio)])
