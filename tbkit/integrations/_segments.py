"""Histograms of many arrays at once, from one concatenated buffer (NumPy only).

Watching a model logs a histogram of each parameter and each gradient. Done one array at a
time that is a few dozen NumPy calls per array; here every array of a step is bucketed by
the same dozen vectorised calls over their concatenation, and the ``Summary`` is
filled in from a template built once. The buckets are those of
:func:`tbkit.plugins.histograms.summary.equal_width_buckets` (TensorBoard's default).
Once every tag's metadata is written, a step's events (the histograms, the norms) are
serialized directly from per-tag byte templates: :meth:`HistogramBatch.event_bytes`,
:class:`ScalarEvents`, with the wire format of :mod:`tbkit.record.wire`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tbkit.plugins.histograms.metadata import DEFAULT_BUCKET_COUNT, create_summary_metadata
from tbkit.plugins.histograms.summary import equal_width_buckets
from tbkit.plugins.scalars.summary import simple_scalar_template
from tbkit.proto import summary_pb2, tensor_shape_pb2, types_pb2
from tbkit.record import wire


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
        # One more bin per segment than buckets: a segment's maximum lands in bin bucket_count
        # (or, by rounding, just below it) and is folded into the last bucket after counting;
        # that saves a capping pass over every value.
        self._bins = bucket_count + 1
        self._offsets = np.repeat(np.arange(0, count * self._bins, self._bins, dtype=np.int32), self.sizes)
        self._scaled = np.empty(total, dtype=self.dtype)
        self._index = np.empty(total, dtype=np.int32)
        self._ramp = np.arange(bucket_count + 1, dtype=np.float64)

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
        if flat.size != self._scaled.size:
            raise ValueError(f"flat holds {flat.size} values, the lengths add up to {self._scaled.size}")
        if count == 0:
            return np.zeros((0, bucket_count, 3))
        values = np.asarray(flat, dtype=self.dtype).reshape(-1)
        # Few NumPy calls, whatever the number of segments: right after a training step the
        # caches are cold and each call costs microseconds. The per-segment arithmetic is on
        # Python floats (float64, as NumPy's), a dozen of them.
        lo = np.minimum.reduceat(values, starts).tolist()
        hi = np.maximum.reduceat(values, starts).tolist()
        lows, widths, flat_rows = [], [], []
        for i, (low, high) in enumerate(zip(lo, hi, strict=True)):
            if low < high and math.isfinite(low) and math.isfinite(high):  # False for NaN
                lows.append(low)
                widths.append((high - low) / bucket_count)
            else:  # non-finite values or one distinct value: one at a time below, as add_histogram
                lows.append(0.0)
                widths.append(1.0)
                flat_rows.append(i)
        if len(flat_rows) == count:
            return np.stack([self._alone(values, i) for i in range(count)])
        scaled, index = self._scaled, self._index
        # (value - lo) / width in self.dtype, every segment at once: each one's lo and width
        # repeated over its values (one memset-like pass each).
        np.subtract(values, np.repeat(np.array(lows, dtype=self.dtype), sizes), out=scaled)
        np.divide(scaled, np.repeat(np.array(widths, dtype=self.dtype), sizes), out=scaled)
        for i in flat_rows:  # replaced below; keep their (maybe NaN) values in range
            scaled[starts[i] : starts[i] + sizes[i]] = 0
        np.copyto(index, scaled, casting="unsafe")  # truncation is floor here: every value is >= 0
        np.add(index, self._offsets, out=index)
        counts = np.bincount(index, minlength=count * self._bins).reshape(count, self._bins)
        counts[:, -2] += counts[:, -1]  # a segment's maximum: in the last bucket
        # np.linspace's arithmetic, vectorised: start + i * step, the last edge exactly the maximum.
        edges = self._ramp * np.array(widths)[:, None] + np.array(lows)[:, None]
        edges[:, -1] = hi
        out = np.empty((count, bucket_count, 3))
        out[:, :, 0] = edges[:, :-1]
        out[:, :, 1] = edges[:, 1:]
        out[:, :, 2] = counts[:, :-1]
        for i in flat_rows:
            out[i] = self._alone(values, i)
        return out

    def _alone(self, values: np.ndarray, i: int) -> np.ndarray:
        start = int(self._starts[i])
        return equal_width_buckets(values[start : start + int(self.sizes[i])], self.bucket_count)


class HistogramBatch:
    """Builds one ``Summary`` holding a histogram per tag: ``histogram_pb``'s values, faster.

    The value protos (tag, plugin metadata, dtype, shape) are built once; each call copies
    them and fills in the bucket bytes. The plugin metadata goes with the first summary only:
    the event file writer would drop it from the later ones anyway. :meth:`event_bytes`
    skips the protos altogether: a serialized value is a fixed head then its bucket bytes.

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
        # A serialized Value without metadata ends with its tensor's tensor_content (the last
        # field of the last field): the bytes before it are fixed, per tag.
        content = bucket_count * 3 * 8
        self._content_size = content
        self._heads: list[bytes] = []
        for value in self._template.value:
            filled = summary_pb2.Summary.Value()
            filled.CopyFrom(value)
            filled.tensor.tensor_content = b"\xa5" * content
            data = filled.SerializeToString()
            assert data.endswith(filled.tensor.tensor_content)
            self._heads.append(wire.field_head(wire.SUMMARY_VALUE, len(data)) + data[:-content])
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

    @property
    def sent_metadata(self) -> bool:
        """Whether :meth:`summary` has been called (the first one carries the metadata)."""
        return self._first is None

    def event_bytes(self, buckets: np.ndarray, step: int, wall_time: float) -> bytes:
        """The serialized ``Event`` of ``buckets`` at ``step``, values without metadata.

        The same bytes as ``Event(wall_time=..., step=..., summary=...).SerializeToString()``
        for a summary of these buckets without metadata.
        """
        rows = np.ascontiguousarray(buckets, dtype="<f8")
        if rows.shape[0] != len(self.tags):
            raise ValueError(f"expected {len(self.tags)} histograms, got {rows.shape[0]}")
        content, size = memoryview(rows.tobytes()), self._content_size
        parts = []
        for i, head in enumerate(self._heads):
            parts.append(head)
            parts.append(content[i * size : (i + 1) * size])
        summary = b"".join(parts)
        return wire.event_head(step, wall_time) + wire.field_head(wire.EVENT_SUMMARY, len(summary)) + summary


class ScalarEvents:
    """Serialized float32 ``simple_value`` events of fixed tags: ``add_scalar``'s bytes.

    Example:
        >>> len(ScalarEvents(["loss"]).events(wire.event_head(1, 0.0), np.array([0.5])))
        1
    """

    def __init__(self, tags: Sequence[str]) -> None:
        self.tags = list(tags)
        self._parts = []
        for tag in self.tags:
            prefix, suffix = simple_scalar_template(tag)
            summary_field = wire.field_head(wire.EVENT_SUMMARY, len(prefix) + 4 + len(suffix))
            self._parts.append((summary_field + prefix, suffix))

    def events(self, head: bytes, values: np.ndarray) -> list[bytes]:
        """One serialized ``Event`` per tag: ``head`` (``wire.event_head(step, wall_time)``), its value."""
        if len(values) != len(self._parts):
            raise ValueError(f"expected {len(self._parts)} values, got {len(values)}")
        with np.errstate(over="ignore"):  # beyond float32's range: ±inf, as add_scalar writes
            data = np.asarray(values, dtype=np.float64).astype("<f4").tobytes()
        return [head + p + data[4 * i : 4 * i + 4] + s for i, (p, s) in enumerate(self._parts)]
