"""Reading audio: legacy ``Summary.Audio`` migrated to ``[k, 2]`` string tensors (clip, label)."""

from __future__ import annotations

import io
import struct
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.audio.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import plugins_pb2, summary_pb2

__all__ = [
    "DATA_CLASS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "blob_rows",
    "blobs",
    "decode",
    "labels",
    "migrate",
    "rows",
    "supported",
    "to_array",
    "wav_info",
]

DATA_CLASS = "blob_sequence"
LEGACY_FIELD = "audio"


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.AudioPluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def migrate(value: summary_pb2.Summary.Value) -> np.ndarray:
    """A legacy ``Summary.Audio`` as the ``[1, 2]`` tensor ``[[clip, b""]]`` (no label)."""
    out = np.empty((1, 2), dtype=object)
    out[0, 0] = value.audio.encoded_audio_string
    out[0, 1] = b""
    return out


def decode(array: np.ndarray) -> np.ndarray:
    """Normalise an audio tensor to ``[k, 2]`` (clip, label); a ``[k]`` tensor gets empty labels."""
    if array.dtype != object or array.ndim not in (1, 2) or (array.ndim == 2 and array.shape[1] < 1):
        raise ValueError(f"an audio summary must be a [k, 2] string tensor, got {array.dtype} {array.shape}")
    if array.ndim == 1:
        out = np.empty((len(array), 2), dtype=object)
        out[:, 0] = array
        out[:, 1] = b""
        return out
    if array.shape[1] == 1:
        return decode(array[:, 0])
    return array[:, :2]


def blobs(stored: np.ndarray) -> list[bytes]:
    """The blob sequence TensorBoard serves: the clips, labels projected out."""
    return list(stored[:, 0])


def labels(stored: np.ndarray) -> list[str]:
    """The clips' Markdown labels (empty strings where none was written), as text."""
    return [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in stored[:, 1].tolist()]


def wav_info(data: bytes) -> tuple[int, int, int]:
    """``(sample_rate, num_channels, length_frames)`` of a PCM WAV clip, or ``(-1, -1, -1)``."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return -1, -1, -1
    pos, rate, channels, block, frames = 12, -1, -1, 0, -1
    while pos + 8 <= len(data):
        chunk, size = struct.unpack_from("<4sI", data, pos)
        if chunk == b"fmt " and size >= 16:
            _, channels, rate, _, block = struct.unpack_from("<HHIIH", data, pos + 8)
        elif chunk == b"data":
            avail = min(size, len(data) - pos - 8)
            frames = avail // block if block else -1
            break
        pos += 8 + size + (size & 1)
    return rate, channels, frames


def wav_duration(head: bytes) -> float | None:
    """A PCM WAV clip's length in seconds from its header (the data chunk's declared size).

    ``head`` may be only the clip's first bytes (through the ``data`` chunk's header). None
    when it is not a WAV, or the size is unknown (a streamed WAV declares 0 or 0xFFFFFFFF).

    Example:
        >>> import struct
        >>> fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, 8000, 16000, 2, 16)
        >>> wav_duration(b"RIFF\\0\\0\\0\\0WAVE" + fmt + struct.pack("<4sI", b"data", 16000))
        1.0
    """
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos, rate, block = 12, 0, 0
    while pos + 8 <= len(head):
        chunk, size = struct.unpack_from("<4sI", head, pos)
        if chunk == b"fmt " and size >= 16 and pos + 24 <= len(head):
            _, _, rate, _, block = struct.unpack_from("<HHIIH", head, pos + 8)
        elif chunk == b"data":
            if rate <= 0 or block <= 0 or size in (0, 0xFFFFFFFF):
                return None
            return (size // block) / rate
        pos += 8 + size + (size & 1)
    return None


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row per clip: index, sample_rate, num_channels, length_frames, label, data."""
    return blob_rows(blobs(stored), labels(stored))


def blob_rows(clips: list[bytes], texts: list[str] | None) -> list[dict[str, Any]]:
    """:func:`rows` of a point given as its blob sequence: the clips and their labels."""
    out = []
    for i, clip in enumerate(clips):
        rate, channels, frames = wav_info(clip)
        label = texts[i] if texts is not None and i < len(texts) else ""
        out.append({"index": i, "sample_rate": rate, "num_channels": channels, "length_frames": frames,
                    "label": label, "data": bytes(clip)})  # fmt: skip
    return out


def to_array(data: bytes) -> tuple[np.ndarray, int]:
    """Decode a clip to ``(samples, sample_rate)``; samples are ``frames × channels`` float64 (soundfile)."""
    import soundfile

    samples, rate = soundfile.read(io.BytesIO(data), dtype="float64", always_2d=True)
    return samples, int(rate)
