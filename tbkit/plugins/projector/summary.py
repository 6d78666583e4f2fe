"""Pure builders of the projector's files: values in, file contents out, no I/O.

Every function validates its argument and raises :class:`~tbkit.errors.InvalidArgumentError`
(a ``ValueError``) naming it, or ``TypeError`` for values of the wrong kind.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from tbkit._arrays import to_numpy
from tbkit.errors import InvalidArgumentError
from tbkit.plugins.images.convert import encode_png, to_uint8

# TensorBoard's projector loads sprites up to this many pixels a side.
MAX_SPRITE_SIDE = 8192

# Nine significant digits name every float32 exactly, seventeen every float64.
_FLOAT32_FORMAT = "%.9g"
_FLOAT64_FORMAT = "%.17g"


def check_mat(mat: Any) -> np.ndarray:
    """``mat`` as a 2-D float32 or float64 array of N ≥ 1 points of D ≥ 1 dimensions.

    float64 and 32/64-bit integers stay float64 (exact); smaller types become float32.

    Example:
        >>> check_mat([[1, 2], [3, 4]]).dtype
        dtype('float64')
    """
    array = to_numpy(mat, name="mat")
    if array.ndim != 2:
        raise InvalidArgumentError(f"mat must be 2-D (N points × D dimensions), got shape {array.shape}")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise InvalidArgumentError(f"mat must have at least one row and one column, got shape {array.shape}")
    kind = array.dtype.kind
    if kind not in "fiub":
        raise TypeError(f"mat must be real numbers, got dtype {array.dtype}")
    wide = array.dtype.itemsize >= 8 or (kind in "iu" and array.dtype.itemsize >= 4)
    return array.astype(np.float64 if wide else np.float32, copy=False)


def tensors_tsv(mat: np.ndarray) -> bytes:
    """``tensors.tsv``: one line per row, values separated by tabs.

    float32 values are written with nine significant digits and float64 ones with
    seventeen, so reading the text back gives the very same numbers.

    Example:
        >>> tensors_tsv(np.array([[0.5, 2.0]], dtype=np.float32))
        b'0.5\\t2\\n'
    """
    array = check_mat(mat)
    spec = _FLOAT64_FORMAT if array.dtype == np.float64 else _FLOAT32_FORMAT
    line = "\t".join([spec] * array.shape[1]) + "\n"
    # tolist() gives Python floats holding each value exactly; one %-format per row is
    # several times faster than formatting value by value.
    return "".join([line % tuple(row) for row in array.tolist()]).encode("ascii")


def _as_list(values: Any, name: str) -> list[Any]:
    if isinstance(values, list):
        return values
    if isinstance(values, tuple):
        return list(values)
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence (list, tuple or array), got {type(values).__name__}")
    if isinstance(values, np.ndarray) or hasattr(values, "__array__") or hasattr(values, "numpy"):
        try:
            return to_numpy(values, name=name).tolist()
        except TypeError:
            pass
    return list(values)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    # A tab or a line break would shift the columns or rows the projector reads.
    if "\t" in text or "\n" in text or "\r" in text:
        text = text.replace("\r\n", " ").replace("\t", " ").replace("\n", " ").replace("\r", " ")
    return text


def _row_cells(row: Any, columns: int, index: int) -> list[str]:
    if isinstance(row, str | bytes) or not isinstance(row, Sequence | np.ndarray):
        if columns == 1:
            return [_cell(row)]
        raise InvalidArgumentError(
            f"metadata[{index}] must be a sequence of {columns} values (one per metadata_header "
            f"column), got {type(row).__name__} {row!r:.60}"
        )
    cells = [_cell(x) for x in (row.tolist() if isinstance(row, np.ndarray) else row)]
    if len(cells) != columns:
        raise InvalidArgumentError(
            f"metadata[{index}] has {len(cells)} values but metadata_header has {columns} columns"
        )
    return cells


def metadata_tsv(metadata: Any, num_points: int, metadata_header: Sequence[Any] | None = None) -> bytes:
    """``metadata.tsv``: one line of labels per data point.

    Without ``metadata_header`` every item is one label (``str(item)``, as torch writes).
    With it, every item is a row of ``len(metadata_header)`` values and the header is the
    first line; with a single column the header is left out, because TensorBoard reads
    a first line without a tab as data. Tabs and line breaks inside labels become spaces.

    Args:
        metadata: One item per data point (list, tuple or array).
        num_points: The number of data points (rows of ``mat``).
        metadata_header: Column names for multi-column metadata.

    Example:
        >>> metadata_tsv([["a", 1], ["b", 2]], 2, ["name", "id"])
        b'name\\tid\\na\\t1\\nb\\t2\\n'
    """
    items = _as_list(metadata, "metadata")
    if len(items) != num_points:
        raise InvalidArgumentError(
            f"metadata has {len(items)} labels but mat has {num_points} rows; they must match"
        )
    if metadata_header is None:
        lines = [_cell(x) for x in items]
    else:
        header = [_cell(h) for h in _as_list(metadata_header, "metadata_header")]
        if not header:
            raise InvalidArgumentError("metadata_header must name at least one column")
        rows = ["\t".join(_row_cells(row, len(header), i)) for i, row in enumerate(items)]
        lines = rows if len(header) == 1 else ["\t".join(header), *rows]
    return ("\n".join(lines) + "\n").encode("utf-8")


def sprite_images(label_img: Any, num_points: int) -> np.ndarray:
    """``label_img`` (``N×C×H×W``, C in 1, 3, 4) as ``N×H×W×C`` uint8; one channel becomes RGB.

    Floats are taken as [0, 1] and scaled by 255, as torch does; uint8 is kept as it is.
    """
    array = to_numpy(label_img, name="label_img")
    if array.ndim != 4:
        raise InvalidArgumentError(f"label_img must have shape (N, C, H, W), got shape {array.shape}")
    n, channels, height, width = array.shape
    if n != num_points:
        raise InvalidArgumentError(f"label_img has {n} images but mat has {num_points} rows; they must match")
    if channels not in (1, 3, 4):
        raise InvalidArgumentError(
            f"label_img must have 1, 3 or 4 channels in dimension 1 (N, C, H, W), got shape {array.shape}"
        )
    if height == 0 or width == 0:
        raise InvalidArgumentError(f"label_img images are empty (shape {array.shape})")
    images = to_uint8(np.transpose(array, (0, 2, 3, 1)))
    if channels == 1:
        images = np.repeat(images, 3, axis=3)
    return images


def sprite_png(images: np.ndarray) -> tuple[bytes, tuple[int, int]]:
    """Tile ``N×H×W×C`` uint8 images into the projector's sprite: a PNG and one image's ``(W, H)``.

    The sprite is a square grid of ``ceil(sqrt(N))`` images a side, filled row by row,
    the rest black: ``ceil(sqrt(N))·H`` pixels tall and ``ceil(sqrt(N))·W`` wide.

    Example:
        >>> sprite_png(np.zeros((5, 2, 3, 3), np.uint8))[1]
        (3, 2)
    """
    n, height, width, channels = images.shape
    side = math.ceil(math.sqrt(n))
    if side * max(height, width) > MAX_SPRITE_SIDE:
        warnings.warn(
            f"the sprite is {side * width}×{side * height} pixels; TensorBoard's projector "
            f"shows sprites up to {MAX_SPRITE_SIDE}×{MAX_SPRITE_SIDE}",
            stacklevel=3,
        )
    grid = np.zeros((side * side, height, width, channels), dtype=np.uint8)
    grid[:n] = images
    canvas = grid.reshape(side, side, height, width, channels).transpose(0, 2, 1, 3, 4)
    return encode_png(canvas.reshape(side * height, side * width, channels)), (width, height)
