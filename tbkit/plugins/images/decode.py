"""Reading images: legacy ``Summary.Image`` migrated to ``[width, height, image, ...]`` string tensors."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.images.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import plugins_pb2, summary_pb2

__all__ = [
    "DATA_CLASS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "blobs",
    "decode",
    "image_format",
    "migrate",
    "rows",
    "supported",
    "to_array",
]

DATA_CLASS = "blob_sequence"
LEGACY_FIELD = "image"

_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"BM", "bmp"),
]


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.ImagePluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def migrate(value: summary_pb2.Summary.Value) -> np.ndarray:
    """A legacy ``Summary.Image`` as the string tensor ``[width, height, encoded image]``."""
    image = value.image
    out = np.empty(3, dtype=object)
    out[:] = [str(image.width).encode("ascii"), str(image.height).encode("ascii"), image.encoded_image_string]
    return out


def decode(array: np.ndarray) -> np.ndarray:
    """Check a ``[width, height, image, ...]`` string tensor (kept as an object array of bytes)."""
    if array.dtype != object or array.ndim != 1 or len(array) < 2:
        raise ValueError(
            f"an image summary must be a string vector [w, h, ...], got {array.dtype} {array.shape}"
        )
    return array


def blobs(stored: np.ndarray) -> list[bytes]:
    """The blob sequence TensorBoard serves: width, height, then the encoded images."""
    return list(stored)


def image_format(data: bytes) -> str:
    """The image format from its first bytes: ``png``, ``jpeg``, ``gif``, ``bmp``, ``webp`` or ``""``."""
    for magic, name in _MAGIC:
        if data.startswith(magic):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return ""


def _int(raw: bytes) -> int:
    try:
        return int(raw)
    except ValueError:
        return -1


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row per image: index, width, height, format, data (encoded bytes)."""
    width, height = _int(stored[0]), _int(stored[1])
    return [
        {"index": i, "width": width, "height": height, "format": image_format(data), "data": bytes(data)}
        for i, data in enumerate(stored[2:])
    ]


def to_array(data: bytes) -> np.ndarray:
    """Decode encoded image bytes to an ``H×W`` or ``H×W×C`` uint8 array (needs Pillow)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img)
