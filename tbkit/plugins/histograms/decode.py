"""Reading histograms: legacy ``HistogramProto`` migrated to ``[k, 3]`` buckets, as TensorBoard does."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.histograms.columns import frame_columns
from tbkit.plugins.histograms.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import histogram_pb2, plugins_pb2, summary_pb2
from tbkit.record import native

__all__ = [
    "DATA_CLASS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "decode",
    "frame_columns",
    "migrate",
    "migrate_bytes",
    "migrate_histogram",
    "rows",
    "supported",
]

DATA_CLASS = "tensor"
LEGACY_FIELD = "histo"


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return plugins_pb2.HistogramPluginData.FromString(content).version <= PROTO_VERSION
    except DecodeError:
        return False


def migrate(value: summary_pb2.Summary.Value) -> np.ndarray:
    """A ``HistogramProto`` as ``[k, 3]`` float32 buckets (left, right, count), as TensorBoard
    migrates it to a float32 tensor.

    Empty buckets at both ends are dropped first; then the first left edge is ``min``,
    the last right edge is ``max``, and the inner edges are the kept ``bucket_limit``
    values (TensorBoard's rule, so ±DBL_MAX outer limits never reach a chart). A
    histogram whose buckets are all empty becomes ``[0, 3]``. The rows stay float32, which
    :func:`decode` keeps as they are: half the memory of float64 for the same numbers.

    Example:
        >>> from tbkit.proto import histogram_pb2
        >>> h = histogram_pb2.HistogramProto(min=0.5, max=2.5, bucket_limit=[0, 1, 2, 3], bucket=[0, 1, 1, 0])
        >>> migrate(summary_pb2.Summary.Value(tag="h", histo=h)).tolist()
        [[0.5, 1.0, 1.0], [1.0, 2.5, 1.0]]
    """
    core = native.core()
    if core is not None:
        raw = core.migrate_histogram(value.histo.SerializeToString())
        if raw is not None:  # one array over the core's bytes (a reshaped view would be a second object)
            return np.ndarray((len(raw) // 12, 3), dtype=np.float32, buffer=raw)
    return migrate_histogram(value.histo)


def migrate_bytes(data: bytes) -> np.ndarray:
    """:func:`migrate` of a serialized ``HistogramProto``, on the compiled core when it is selected.

    Raises:
        DecodeError: ``data`` is not a ``HistogramProto``.
        ValueError: more buckets than inner edges, as in :func:`migrate`.

    Example:
        >>> h = histogram_pb2.HistogramProto(min=0.0, max=1.0, bucket_limit=[1.0], bucket=[3.0])
        >>> migrate_bytes(h.SerializeToString()).tolist()
        [[0.0, 1.0, 3.0]]
    """
    core = native.core()
    if core is not None:
        raw = core.migrate_histogram(data)
        if raw is not None:
            return np.frombuffer(raw, dtype=np.float32).reshape(-1, 3)
    return migrate_histogram(histogram_pb2.HistogramProto.FromString(data))


def migrate_histogram(histo: histogram_pb2.HistogramProto) -> np.ndarray:
    """:func:`migrate` of a parsed ``HistogramProto`` in NumPy (the pure-Python path).

    Example:
        >>> h = histogram_pb2.HistogramProto(min=0.0, max=1.0, bucket_limit=[1.0], bucket=[0.0])
        >>> migrate_histogram(h).shape
        (0, 3)
    """
    counts = np.asarray(histo.bucket, dtype=np.float64)
    limits = np.asarray(histo.bucket_limit, dtype=np.float64)
    filled = np.flatnonzero(counts > 0)
    if not len(filled):
        return np.zeros((0, 3), dtype=np.float32)
    first, last = int(filled[0]), int(filled[-1])
    inner = limits[first:last]
    lefts = np.concatenate([[histo.min], inner])
    rights = np.concatenate([inner, [histo.max]])
    return np.stack([lefts, rights, counts[first : last + 1]], axis=1).astype(np.float32)


def decode(array: np.ndarray) -> np.ndarray:
    """Check a ``[k, 3]`` bucket tensor and return it as floats: a float32 or float64 one as it
    is (the reader hands over arrays of its own, :func:`migrate`'s or the record's tensor),
    any other number dtype as float64."""
    if array.ndim != 2 or array.shape[1] != 3 or array.dtype.kind not in "fiu":
        raise ValueError(f"a histogram must be a [k, 3] number tensor, got {array.dtype} {array.shape}")
    if array.dtype in (np.float32, np.float64):
        return array
    return array.astype(np.float64)


def rows(stored: np.ndarray) -> list[dict[str, Any]]:
    """One frame row: ``edges`` (k+1 edges: each left, then the last right) and ``counts`` (k),
    both float64 whatever the stored dtype."""
    counts = stored[:, 2].astype(np.float64)
    if not len(stored):
        return [{"edges": np.empty(0, dtype=np.float64), "counts": counts}]
    edges = np.concatenate((stored[:, 0], stored[-1:, 1])).astype(np.float64, copy=False)
    return [{"edges": edges, "counts": counts}]
