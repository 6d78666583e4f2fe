"""The histogram and distribution dashboards' computations, as plain functions.

:func:`percentiles` turns one histogram's ``[k, 3]`` buckets (left, right, count) into
TensorBoard's "compressed histogram": the values at nine basis points of the cumulative
count (the normal distribution's -inf, -1.5σ, -1σ, -0.5σ, 0, +0.5σ, +1σ, +1.5σ, +inf),
interpolated linearly inside the bucket where each basis point falls.

Example:
    >>> percentiles(np.array([[0.0, 1.0, 1.0], [1.0, 2.0, 1.0]]))[4]
    1.0
"""

from __future__ import annotations

import numpy as np

__all__ = ["BASIS_POINTS", "percentiles"]

BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


def percentiles(buckets: np.ndarray, basis_points: tuple[int, ...] = BASIS_POINTS) -> list[float]:
    """The value at each basis point (1/100 of a percent) of the histogram ``buckets``.

    Follows TensorBoard's distribution compressor: cumulative counts scaled to 10,000;
    for each basis point, the first bucket whose cumulative weight passes it (buckets
    adding no weight are skipped) gives a linear interpolation between its lower bound
    (the histogram's minimum for the first weighted bucket, else the previous bucket's
    right edge, at least the minimum) and its right edge (at most the maximum). Basis
    points past the last bucket get the maximum; an empty histogram gives zeros.
    """
    buckets = np.asarray(buckets, dtype=np.float64).reshape(-1, 3)
    if not len(buckets):
        return [0.0] * len(basis_points)
    low, high = float(buckets[0, 0]), float(buckets[-1, 1])
    rights = buckets[:, 1]
    counts = buckets[:, 2]
    total = float(counts.sum()) or 1.0
    cumulative = np.cumsum(counts * basis_points[-1] / total)
    out: list[float] = []
    for bp in basis_points:
        i = int(np.searchsorted(cumulative, bp, side="right"))
        value = None
        while i < len(cumulative):
            before = float(cumulative[i - 1]) if i > 0 else 0.0
            after = float(cumulative[i])
            if after != before:
                left = low if (i == 0 or before == 0.0) else max(float(rights[i - 1]), low)
                right = min(float(rights[i]), high)
                value = left + (bp - before) * (right - left) / (after - before)
                break
            i += 1
        if value is None:  # past the last weighted bucket: this and every later point is the max
            out.extend([high] * (len(basis_points) - len(out)))
            break
        out.append(value)
    return out
