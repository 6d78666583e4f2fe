"""PR-curve summaries: labels and predictions to counts, precision and recall per threshold."""

from __future__ import annotations

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.pr_curves.metadata import create_summary_metadata
from tbkit.proto import summary_pb2

_MINIMUM_COUNT = 1e-7  # keeps precision and recall finite where nothing is predicted


def compute_curve(
    labels: np.ndarray, predictions: np.ndarray, num_thresholds: int = 127, weights: np.ndarray | None = None
) -> np.ndarray:
    """The ``[6, num_thresholds]`` rows TP, FP, TN, FN, precision, recall (TensorBoard's rule).

    Threshold ``i`` is ``i / (num_thresholds - 1)``; a prediction counts as positive at every
    threshold up to its bucket ``floor(prediction * (num_thresholds - 1))``.

    Example:
        >>> compute_curve(np.array([1, 0]), np.array([0.9, 0.1]), 3)[0].tolist()
        [1.0, 1.0, 0.0]
    """
    if num_thresholds < 2:
        raise ValueError(f"num_thresholds must be at least 2, got {num_thresholds}")
    labels = np.asarray(labels).reshape(-1)
    predictions = np.asarray(predictions, dtype=np.float64).reshape(-1)
    if labels.shape != predictions.shape:
        raise ValueError(
            f"labels and predictions must have the same size, got {labels.size} and {predictions.size}"
        )
    if predictions.size and (
        np.nanmin(predictions) < 0 or np.nanmax(predictions) > 1 or np.isnan(predictions).any()
    ):
        raise ValueError("predictions must lie in [0, 1]")
    positive = labels.astype(np.float64)
    w = (
        np.ones_like(positive)
        if weights is None
        else np.broadcast_to(np.asarray(weights, np.float64), positive.shape)
    )
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.intp)
    tp_buckets = np.bincount(buckets, weights=positive * w, minlength=num_thresholds)
    fp_buckets = np.bincount(buckets, weights=(1.0 - positive) * w, minlength=num_thresholds)
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(_MINIMUM_COUNT, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall]).astype(np.float32)


def pr_curve_pb(
    tag: str, data: np.ndarray, *, display_name: str = "", description: str = ""
) -> summary_pb2.Summary:
    """A PR-curve ``Summary`` of the ``[6, num_thresholds]`` ``data``."""
    data = np.asarray(data, dtype=np.float32)
    if data.ndim != 2 or data.shape[0] != 6:
        raise ValueError(f"PR curve data must have shape [6, num_thresholds], got {data.shape}")
    meta = create_summary_metadata(data.shape[1], display_name=display_name, description=description)
    return tensor_summary(tag, make_tensor_proto(data), meta)
