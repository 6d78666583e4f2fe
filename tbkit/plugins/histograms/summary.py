"""Histogram summaries: values to ``[k, 3]`` bucket tensors (left edge, right edge, count)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.histograms.metadata import DEFAULT_BUCKET_COUNT, create_summary_metadata
from tbkit.proto import histogram_pb2, summary_pb2

Bins = int | str | Sequence[float] | np.ndarray


def equal_width_buckets(data: np.ndarray, bucket_count: int = DEFAULT_BUCKET_COUNT) -> np.ndarray:
    """TensorBoard's default bucketing: ``bucket_count`` equal-width buckets from min to max.

    Same edges and counts as TensorBoard's ``histogram_pb``: a value on an inner edge falls
    in the bucket to its right, the maximum in the last bucket; all-equal data put every
    count in the last of ``bucket_count`` zero-width buckets; no data gives all zeros.
    Non-finite values are left out.

    Example:
        >>> equal_width_buckets(np.array([0.0, 1.0, 2.0]), 2)[:, 2].tolist()
        [1.0, 2.0]
    """
    flat = data.reshape(-1)
    lo = hi = None
    if flat.size:
        lo, hi = flat.min(), flat.max()
        if not (np.isfinite(lo) and np.isfinite(hi)):
            flat = flat[np.isfinite(flat)]
            lo, hi = (flat.min(), flat.max()) if flat.size else (None, None)
    out = np.zeros((bucket_count, 3), dtype=np.float64)
    if lo is None or bucket_count == 0:
        return out
    lo, hi = float(lo), float(hi)
    if hi == lo:
        out[:, 0] = out[:, 1] = lo
        out[-1, 2] = flat.size
        return out
    width = (hi - lo) / bucket_count
    scaled = flat.astype(np.float64)
    scaled -= lo
    scaled /= width
    index = scaled.astype(np.intp)  # truncation is floor here: every offset is >= 0
    np.minimum(index, bucket_count - 1, out=index)
    out[:, 2] = np.bincount(index, minlength=bucket_count)
    edges = np.linspace(lo, hi, bucket_count + 1)
    edges[-1] = hi
    out[:, 0] = edges[:-1]
    out[:, 1] = edges[1:]
    return out


def compute_buckets(data: np.ndarray, bins: Bins = "tensorflow", max_bins: int | None = None) -> np.ndarray:
    """Bucket ``data`` into a ``[k, 3]`` array.

    Args:
        data: The values; non-finite ones are left out.
        bins: ``"tensorflow"`` (TensorFlow 2's default, 30 equal-width buckets), a bucket
            count, a NumPy binning strategy name (``"auto"``, ``"fd"``, ...), or the edges.
        max_bins: An upper bound on the number of buckets, where ``bins`` leaves it open.
    """
    if isinstance(bins, str) and bins == "tensorflow":
        count = DEFAULT_BUCKET_COUNT if max_bins is None else min(DEFAULT_BUCKET_COUNT, max_bins)
        return equal_width_buckets(data, count)
    if isinstance(bins, int | np.integer) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"bins must be at least 1, got {bins}")
        return equal_width_buckets(data, int(bins))
    flat = data.reshape(-1).astype(np.float64)
    flat = flat[np.isfinite(flat)]
    if isinstance(bins, str):
        if flat.size == 0:
            return np.zeros((0, 3))
        try:
            edges = np.histogram_bin_edges(flat, bins=bins)
        except ValueError as exc:
            raise ValueError(f"bins={bins!r} is not a known binning strategy") from exc
        if max_bins is not None and len(edges) - 1 > max_bins:
            edges = np.linspace(edges[0], edges[-1], max_bins + 1)
    else:
        edges = np.asarray(bins, dtype=np.float64).reshape(-1)
        if edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError("bins given as edges must be at least two strictly increasing numbers")
    counts, edges = np.histogram(flat, bins=edges)
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def histogram_pb(
    tag: str,
    buckets: np.ndarray,
    *,
    with_metadata: bool = True,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.Summary:
    """A histogram ``Summary`` holding the ``[k, 3]`` float64 ``buckets`` tensor."""
    meta = (
        create_summary_metadata(display_name=display_name, description=description) if with_metadata else None
    )
    return tensor_summary(tag, make_tensor_proto(np.asarray(buckets, dtype=np.float64)), meta)


def histogram_raw_pb(
    tag: str,
    *,
    min: float,
    max: float,
    num: float,
    sum: float,
    sum_squares: float,
    bucket_limits: Sequence[float],
    bucket_counts: Sequence[float],
) -> summary_pb2.Summary:
    """A legacy ``HistogramProto`` summary from precomputed statistics (torch's ``add_histogram_raw``).

    Kept in TensorFlow 1's form so that every statistic given survives; TensorBoard (and
    tbkit's reader) migrate it to buckets on read.
    """
    if len(bucket_limits) != len(bucket_counts):
        raise ValueError(
            f"bucket_limits and bucket_counts must have the same length, got {len(bucket_limits)} "
            f"and {len(bucket_counts)}"
        )
    histo = histogram_pb2.HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=list(map(float, bucket_limits)),
        bucket=list(map(float, bucket_counts)),
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=histo)])
