"""Histograms of many arrays at once, from one concatenated buffer (NumPy only).

Watching a model logs a histogram of each parameter and each gradient. Done one array at a
time that is a few dozen NumPy calls per array; here every array of a step is bucketed by
the same dozen vectorised calls over their concatenation, and the ``Summary`` is
filled in from a template built once. The buckets are those of
:func:`tbkit.plugins.histograms.summary.equal_width_buckets` (TensorBoard's default).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tbkit.plugins.histograms.metadata import DEFAULT_BUCKET_COUNT, create_summary_metadata
from tbkit.plugins.histograms.summary import equal_width_buckets
from tbkit.proto import summary_pb2, tensor_shape_pb2, types_pb2


def segment_buckets(
    flat: np.ndarray, lengths: Sequence[int], bucket_count: int = DEFAULT_BUCKET_COUNT
) -> np.ndarray:
    """Equal-width buckets of consecutive segments of ``flat``.

    TensorBoard's default bucketing, as ``equal_width_buckets``: per segment, ``bucket_count``
    buckets from its minimum to its maximum (the same float64 edges), the maximum in the last
    one, an all-equal segment in the last of ``bucket_count`` zero-width buckets, non-finite
    values left out. The bucket of each value is computed in ``flat``'s precision (float32 for
    a float32 buffer: half the memory traffic), so a value within rounding of an inner edge
    may be counted in the neighbouring bucket compared with ``equal_width_buckets``.

    Args:
        flat: The arrays, flattened and concatenated: float32 or float64.
        lengths: The length of each segment, each at least 1, summing to ``flat.size``.
        bucket_count: Buckets per histogram.

    Returns:
        A float64 ``[n, bucket_count, 3]`` array: left edge, right edge, count.

    Example:
        >>> segment_buckets(np.array([0.0, 1.0, 3.0, 4.0]), [2, 2], 2)[1].tolist()
        [[3.0, 3.5, 1.0], [3.5, 4.0, 1.0]]
    """
    return SegmentBucketer(lengths, bucket_count, dtype=flat.dtype)(flat)


class SegmentBucketer:
    """``segment_buckets`` for one fixed list of segment lengths, with its scratch memory kept.

    Bucketing a few hundred thousand values allocates megabytes of temporaries, and fresh
    large allocations cost a page fault per 4 KiB on every call; a watcher buckets the same
    layout at every logged step, so the scratch arrays are allocated once here.

    Example:
        >>> bucketer = SegmentBucketer([2, 2], 2)
        >>> bucketer(np.array([0.0, 1.0, 3.0, 4.0], dtype=np.float32))[0, :, 2].tolist()
        [1.0, 1.0]
    """

    def __init__(
        self, lengths: Sequence[int], bucket_count: int = DEFAULT_BUCKET_COUNT, *, dtype: Any = np.float32
    ) -> None:
        self.sizes = np.asarray(lengths, dtype=np.intp).reshape(-1)
        if self.sizes.size and self.sizes.min() < 1:
            raise ValueError("lengths must be positive")
        self.bucket_count = bucket_count
        self.dtype = np.dtype(np.float64 if np.dtype(dtype) not in (np.float32, np.float64) else dtype)
        count, total = len(self.sizes), int(self.sizes.sum())
        self._starts = np.zeros(count, dtype=np.intp)
        np.cumsum(self.sizes[:-1], out=self._starts[1:])
        self._offsets = np.repeat(np.arange(0, count * bucket_count, bucket_count, dtype=np.intp), self.sizes)
        self._scaled = np.empty(total, dtype=self.dtype)
        self._index = np.empty(total, dtype=np.intp)

    def norms(self, flat: np.ndarray) -> np.ndarray:
        """The float64 L2 norm of each segment of ``flat`` (squares summed in float64)."""
        values = np.asarray(flat).reshape(-1)
        if values.size != self._scaled.size:
            raise ValueError(f"flat holds {values.size} values, the lengths add up to {self._scaled.size}")
        if not len(self.sizes):
            return np.zeros(0)
        return np.sqrt(np.add.reduceat(np.square(values, dtype=np.float64), self._starts))

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        """The ``[n, bucket_count, 3]`` buckets of ``flat`` (laid out as the lengths say)."""
        bucket_count, sizes, starts = self.bucket_count, self.sizes, self._starts
        count = len(sizes)
        out = np.zeros((count, bucket_count, 3), dtype=np.float64)
        if flat.size != self._scaled.size:
            raise ValueError(f"flat holds {flat.size} values, the lengths add up to {self._scaled.size}")
        if count == 0:
            return out
        values = np.asarray(flat, dtype=self.dtype).reshape(-1)
        lo = np.minimum.reduceat(values, starts).astype(np.float64)
        hi = np.maximum.reduceat(values, starts).astype(np.float64)
        spread = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)  # NaN propagates through min and max
        # Segments with non-finite values or one distinct value: one at a time, as add_histogram.
        for i in np.flatnonzero(~spread):
            out[i] = equal_width_buckets(values[starts[i] : starts[i] + sizes[i]], bucket_count)
        rows = np.flatnonzero(spread)
        if rows.size == 0:
            return out
        width = np.where(spread, (hi - lo) / bucket_count, 1.0)
        scaled, index, top = self._scaled, self._index, float(bucket_count - 1)
        # Per segment, in place (no repeated lo/width arrays): (value - lo) / width, capped. The
        # Python floats hold values of self.dtype exactly, and NumPy keeps the array's dtype.
        lows = lo.astype(self.dtype).tolist()
        steps = width.astype(self.dtype).tolist()
        bounds = zip(starts.tolist(), sizes.tolist(), spread.tolist(), lows, steps, strict=True)
        for start, size, used, low, step in bounds:
            part = scaled[start : start + size]
            if used:
                np.subtract(values[start : start + size], low, out=part)
                np.divide(part, step, out=part)
                np.minimum(part, top, out=part)
            else:
                part.fill(0)  # counted into a row that is dropped below
        np.copyto(index, scaled, casting="unsafe")  # truncation is floor here: every offset is >= 0
        np.add(index, self._offsets, out=index)
        counts = np.bincount(index, minlength=count * bucket_count).reshape(count, bucket_count)
        # np.linspace's arithmetic, vectorised: start + i * step, the last edge exactly the maximum.
        edges = np.arange(bucket_count + 1, dtype=np.float64)[None, :] * width[rows, None] + lo[rows, None]
        edges[:, -1] = hi[rows]
        out[rows, :, 0] = edges[:, :-1]
        out[rows, :, 1] = edges[:, 1:]
        out[rows, :, 2] = counts[rows]
        return out


class HistogramBatch:
    """Builds one ``Summary`` holding a histogram per tag: ``histogram_pb``'s values, faster.

    The value protos (tag, plugin metadata, dtype, shape) are built once; each call copies
    them and fills in the bucket bytes. The plugin metadata goes with the first summary only:
    the event file writer would drop it from the later ones anyway.

    Example:
        >>> batch = HistogramBatch(["w"])
        >>> batch.summary(np.zeros((1, 30, 3))).value[0].tag
        'w'
    """

    def __init__(self, tags: Sequence[str], bucket_count: int = DEFAULT_BUCKET_COUNT) -> None:
        self.tags = list(tags)
        meta = create_summary_metadata()
        shape = tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=n) for n in (bucket_count, 3)]
        )
        self._template = summary_pb2.Summary()
        for tag in self.tags:
            value = self._template.value.add(tag=tag)
            value.tensor.dtype = types_pb2.DT_DOUBLE
            value.tensor.tensor_shape.CopyFrom(shape)
        self._first: summary_pb2.Summary | None = summary_pb2.Summary()
        self._first.CopyFrom(self._template)
        for value in self._first.value:
            value.metadata.CopyFrom(meta)

    def summary(self, buckets: np.ndarray) -> summary_pb2.Summary:
        """The ``Summary`` of ``buckets`` (``[len(tags), bucket_count, 3]``, as ``segment_buckets`` gives)."""
        rows = np.ascontiguousarray(buckets, dtype="<f8")  # byte order explicit: little-endian
        if rows.shape[0] != len(self.tags):
            raise ValueError(f"expected {len(self.tags)} histograms, got {rows.shape[0]}")
        out = summary_pb2.Summary()
        out.CopyFrom(self._first if self._first is not None else self._template)
        self._first = None
        for value, block in zip(out.value, rows, strict=True):
            value.tensor.tensor_content = block.tobytes()
        return out
