"""Nearest neighbours of one point, on the full-dimensional data.

Example:
    >>> x = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    >>> nearest(x, 0, 2, "euclidean")
    [(1, 1.0), (2, 3.0)]
"""

from __future__ import annotations

import numpy as np

from tbkit.errors import InvalidArgumentError

__all__ = ["METRICS", "distances", "nearest"]

METRICS = ("cosine", "euclidean")


def distances(x: np.ndarray, index: int, metric: str) -> np.ndarray:
    """The distance from row ``index`` of ``x`` to every row.

    Args:
        x: ``N×D`` values.
        index: The point measured from.
        metric: ``"euclidean"`` (the L2 distance) or ``"cosine"`` (``1 - cos θ``; a zero vector
            is at distance 1 from everything, itself included).

    Returns:
        ``N`` float64 distances (the point itself included).
    """
    if metric not in METRICS:
        raise InvalidArgumentError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    x = np.asarray(x, dtype=np.float64)
    point = x[index]
    if metric == "euclidean":
        diff = x - point
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))
    norms = np.linalg.norm(x, axis=1)
    denominator = norms * norms[index]
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = (x @ point) / denominator
    cosine[denominator == 0] = 0.0  # a zero vector: no direction (NaN stays NaN)
    return 1.0 - np.clip(cosine, -1.0, 1.0)


def nearest(x: np.ndarray, index: int, k: int, metric: str) -> list[tuple[int, float]]:
    """The ``k`` points nearest to row ``index`` (itself left out), nearest first.

    Ties are broken by the lower index; NaN distances (rows holding NaN) come last.

    Returns:
        ``[(index, distance), ...]``, at most ``N - 1`` of them.
    """
    n = len(x)
    if not 0 <= index < n:
        raise InvalidArgumentError(f"index must be in [0, {n - 1}], got {index}")
    dist = distances(x, index, metric)
    others = np.delete(np.arange(n), index)
    keys = dist[others]
    order = np.lexsort((others, np.isnan(keys), np.nan_to_num(keys, nan=np.inf)))[:k]
    return [(int(others[i]), float(keys[i])) for i in order]
