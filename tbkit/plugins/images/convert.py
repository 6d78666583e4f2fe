"""Image arrays in any layout (CHW, HWC, HW, NCHW, NHWC ...) to ``H×W×C`` uint8, and PNG."""

from __future__ import annotations

import io
import math

import numpy as np

_LETTERS = frozenset("NCHW")


def _check_format(shape: tuple[int, ...], dataformats: str) -> str:
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or not set(fmt) <= _LETTERS or not {"H", "W"} <= set(fmt):
        raise ValueError(f"dataformats must be letters from N, C, H, W with H and W, got {dataformats!r}")
    if len(fmt) != len(shape):
        raise ValueError(f"dataformats={dataformats!r} needs a {len(fmt)}-D array, got shape {shape}")
    return fmt


def to_uint8(array: np.ndarray) -> np.ndarray:
    """Pixel values to uint8: floats and bools are taken as [0, 1], other integers as [0, 255].

    Floats are scaled by 255 and truncated, as torch's ``add_image`` does.
    """
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f" or array.dtype == np.bool_:
        scaled = np.nan_to_num(array.astype(np.float32) * 255.0, nan=0.0)
        return np.clip(scaled, 0, 255).astype(np.uint8)
    if array.dtype.kind in "iu":
        return np.clip(array, 0, 255).astype(np.uint8)
    raise TypeError(f"image values must be numeric, got dtype {array.dtype}")


def make_grid(batch: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tile an ``N×H×W×C`` batch into one image, ``min(N, ncols)`` images per row (torch's layout)."""
    n, h, w, c = batch.shape
    cols = max(1, min(n, ncols))
    rows = math.ceil(n / cols) if n else 1
    canvas = np.zeros((rows * h, cols * w, c), dtype=batch.dtype)
    for i in range(n):
        r, col = divmod(i, cols)
        canvas[r * h : (r + 1) * h, col * w : (col + 1) * w] = batch[i]
    return canvas


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """Reorder ``array`` laid out as ``dataformats`` to ``H×W×C`` (batches become a grid).

    Example:
        >>> to_hwc(np.zeros((3, 4, 5)), "CHW").shape
        (4, 5, 3)
    """
    fmt = _check_format(array.shape, dataformats)
    order = [fmt.index(x) for x in "NHWC" if x in fmt]
    arr = np.transpose(array, order)
    if "C" not in fmt:
        arr = arr[..., np.newaxis]
    if "N" in fmt:
        if arr.shape[0] == 0:
            raise ValueError(f"image batch is empty (shape {array.shape})")
        arr = make_grid(arr)
    if arr.shape[-1] not in (1, 3, 4):
        raise ValueError(f"images need 1, 3 or 4 channels, got {arr.shape[-1]} (shape {array.shape})")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"image is empty (shape {array.shape})")
    return arr


_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def encode_png(hwc: np.ndarray) -> bytes:
    """PNG-encode an ``H×W×C`` uint8 image (C in 1, 3, 4) with fast compression."""
    from PIL import Image

    image = Image.fromarray(
        np.ascontiguousarray(hwc[..., 0] if hwc.shape[-1] == 1 else hwc), _MODES[hwc.shape[-1]]
    )
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
