"""What a series' points reduce to: the deterministic downsampling every provider uses, and extremes.

A leaf of the provider package: it imports nothing of tbkit but :mod:`tbkit.errors`.
"""

from __future__ import annotations

import numpy as np

from tbkit.errors import InvalidArgumentError

__all__ = ["downsample_indices", "extremes"]


def downsample_indices(steps: np.ndarray, k: int | None) -> np.ndarray:
    """Indices (increasing) of at most ``k`` points of a series, always keeping the last.

    The others are chosen by a hash of their step (the ``k - 1`` smallest hashes): the
    choice is deterministic, spread uniformly over the series, and two series of one
    run with the same steps keep the same steps.

    Example:
        >>> downsample_indices(np.arange(10), 3).tolist()[-1]
        9
    """
    n = len(steps)
    if k is None or k >= n:
        return np.arange(n)
    if k < 0:
        raise InvalidArgumentError(f"downsample must be non-negative, got {k}")
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    x = np.asarray(steps[:-1], dtype=np.int64).view(np.uint64).copy()  # splitmix64
    x += np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    chosen = np.argsort(x, kind="stable")[: k - 1] if k > 1 else np.zeros(0, dtype=np.int64)
    return np.append(np.sort(chosen), n - 1).astype(np.int64)


def extremes(values: np.ndarray) -> tuple[float | None, float | None, int]:
    """``(min, max, count)`` of ``values``: the extremes of the finite ones (None when none is).

    Example:
        >>> extremes(np.array([3.0, np.nan, -1.0]))
        (-1.0, 3.0, 3)
    """
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None, None, int(values.size)
    return float(finite.min()), float(finite.max()), int(values.size)
