"""Histograms as ``torch.utils.tensorboard`` writes them: a TF1 ``HistogramProto``.

The bucketing follows torch's ``add_histogram``: ``bins="tensorflow"`` means TensorFlow 1's
default edges (0, and ±1e-12 growing by a factor of 1.1 up to 1e20); other ``bins`` are
NumPy's; ``max_bins`` merges neighbouring buckets; and only the buckets from the first to
the last non-empty one are kept, after one empty bucket whose right limit is the first
kept bucket's left edge (a ``HistogramProto`` stores right limits only).
"""

from __future__ import annotations

import functools

import numpy as np

from tbkit.plugins.histograms.summary import Bins, histogram_raw_pb
from tbkit.proto import summary_pb2


@functools.cache
def default_edges() -> np.ndarray:
    """TensorFlow 1's default bucket edges, as torch builds them (by repeated multiplication)."""
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    edges = np.array([-e for e in reversed(positive)] + [0.0] + positive)
    edges.setflags(write=False)
    return edges


def _merged(counts: np.ndarray, edges: np.ndarray, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ``k`` neighbouring buckets summed into one (k = buckets // max_bins), as torch does."""
    k = len(counts) // max_bins
    padded = np.concatenate([counts, np.zeros(-len(counts) % k, dtype=counts.dtype)])
    merged = padded.reshape(-1, k).sum(axis=1)
    merged_edges = np.append(edges[:-1:k], edges[-1])
    return merged, merged_edges


def histogram_proto_pb(
    tag: str, values: np.ndarray, bins: Bins = "tensorflow", max_bins: int | None = None
) -> summary_pb2.Summary:
    """The ``HistogramProto`` summary torch's ``add_histogram`` writes for ``values``.

    Non-finite values are left out (torch would write NaN statistics).

    Raises:
        ValueError: ``bins`` is not a bucket count, a NumPy strategy or increasing edges.

    Example:
        >>> histogram_proto_pb("w", np.array([1.0, 2.0]), bins=2).value[0].histo.bucket
        [0.0, 1.0, 1.0]
    """
    flat = values.reshape(-1).astype(np.float64)
    flat = flat[np.isfinite(flat)]
    if flat.size == 0:
        return histogram_raw_pb(
            tag, min=0.0, max=0.0, num=0.0, sum=0.0, sum_squares=0.0, bucket_limits=[], bucket_counts=[]
        )
    counts, edges = _bucketed(flat, bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, edges = _merged(counts, edges, max_bins)
    filled = np.flatnonzero(counts)
    if filled.size == 0:  # every value beyond the edges
        first = last = len(counts) - 1
    else:
        first, last = int(filled[0]), int(filled[-1])
    kept = np.concatenate([[0.0], counts[first : last + 1]])
    return histogram_raw_pb(
        tag,
        min=float(flat.min()),
        max=float(flat.max()),
        num=float(flat.size),
        sum=float(flat.sum()),
        sum_squares=float(np.einsum("i,i->", flat, flat)),  # not BLAS: its threads stall on a busy CPU
        bucket_limits=edges[first : last + 2].tolist(),
        bucket_counts=kept.tolist(),
    )


def _bucketed(flat: np.ndarray, bins: Bins) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(bins, str) and bins == "tensorflow":
        edges: object = default_edges()
    elif isinstance(bins, bool):
        raise ValueError(f"bins must be a bucket count, a NumPy strategy or edges, got {bins!r}")
    elif isinstance(bins, int | np.integer):
        if bins < 1:
            raise ValueError(f"bins must be at least 1, got {bins}")
        edges = int(bins)
    elif isinstance(bins, str):
        edges = bins
    else:
        edges = np.asarray(bins, dtype=np.float64).reshape(-1)
        if edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError("bins given as edges must be at least two strictly increasing numbers")
    try:
        counts, out_edges = np.histogram(flat, bins=edges)
    except ValueError as exc:
        raise ValueError(f"bins={bins!r} is not a known binning strategy") from exc
    return counts.astype(np.float64), out_edges.astype(np.float64)
