"""The histograms frame's ``edges`` and ``counts`` cells of many points at once.

:func:`frame_columns` builds the cells :func:`tbkit.plugins.histograms.decode.rows` builds one
point at a time, into a few large fresh float64 blocks: consecutive points' counts one after
another in one block, their edges in another, each point's cell a view of its stretch. A
frame of 40,000 histograms of 600 buckets makes 2 x 92 blocks of 2 MiB instead of 80,000
small arrays (minor page faults 99k -> 4k); no cell shares memory with the stored points.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tbkit.record import native

__all__ = ["frame_columns"]


# Doubles per block: 2 MiB, under the 4 MiB from which NumPy asks the kernel for huge pages
# (their faults cost 2-3x the sys time of small pages on a busy machine: 1.4 s against 0.6 s
# for the 40,000 histograms of bench/mixed.py).
BLOCK = 1 << 18


def frame_columns(values: Sequence[np.ndarray]) -> dict[str, list[np.ndarray]] | None:
    """The ``edges`` and ``counts`` cells of each stored point (one row each), as :func:`rows`
    makes them: ``edges`` the k lefts then the last right (k+1; none for an empty
    histogram), ``counts`` the k counts, both float64.

    The cells are views of fresh blocks, one per column for each run of consecutive points
    that fits in :data:`BLOCK` doubles (a bigger point has blocks of its own). Every point
    must be a float32 or float64 ``[k, 3]`` array (what the reader stores); None when one is
    not, so that the caller builds the rows point by point as before.

    Example:
        >>> cells = frame_columns([np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 4.0]]), np.zeros((0, 3))])
        >>> [c.tolist() for c in cells["edges"]], [c.tolist() for c in cells["counts"]]
        ([[0.0, 1.0, 3.0], []], [[2.0, 4.0], []])
    """
    try:
        sizes = [len(v) for v in values]
    except TypeError:  # a value without a length is no [k, 3] array
        return None
    cells: dict[str, list[np.ndarray]] = {"edges": [], "counts": []}
    for start, stop in _groups(sizes):
        if not _fill(values[start:stop], sizes[start:stop], cells["edges"], cells["counts"]):
            return None
    return cells


def _groups(sizes: list[int]) -> list[tuple[int, int]]:
    """``(start, stop)`` of consecutive points whose edges (k+1 each) fit in :data:`BLOCK`
    doubles, at least one point each."""
    groups, start, total = [], 0, 0
    for i, k in enumerate(sizes):
        if total + k + 1 > BLOCK and i > start:
            groups.append((start, i))
            start, total = i, 0
        total += k + 1
    if start < len(sizes):
        groups.append((start, len(sizes)))
    return groups


def _fill(
    values: Sequence[np.ndarray],
    sizes: list[int],
    edge_cells: list[np.ndarray],
    count_cells: list[np.ndarray],
) -> bool:
    """Copy ``values``' counts and edges into one fresh block each (on the compiled core when it
    is selected, which checks each point), appending each point's views; False when a point
    is not float32 or float64 ``[k, 3]`` buckets."""
    counts = np.empty(sum(sizes), dtype=np.float64)
    edges = np.empty(sum(sizes) + sum(1 for k in sizes if k), dtype=np.float64)
    core = native.core()
    if core is None or not core.histogram_cells(values, edges, counts):
        if not all(_is_buckets(v) for v in values):  # else one the core does not take, e.g. strided
            return False
        _copy(values, sizes, edges, counts)
    at = edge_at = 0
    for k in sizes:
        span = k + 1 if k else 0
        count_cells.append(counts[at : at + k])
        edge_cells.append(edges[edge_at : edge_at + span])
        at += k
        edge_at += span
    return True


def _copy(values: Sequence[np.ndarray], sizes: list[int], edges: np.ndarray, counts: np.ndarray) -> None:
    """What the compiled ``histogram_cells`` does, in NumPy: each point's counts, then its lefts
    and last right, one point after another."""
    at = edge_at = 0
    # Slice by slice: one np.concatenate of 40,000 strided pieces was 1.5-3x slower here.
    for value, k in zip(values, sizes, strict=True):
        if k:
            counts[at : at + k] = value[:, 2]
            edges[edge_at : edge_at + k] = value[:, 0]
            edges[edge_at + k] = value[k - 1, 1]
        at += k
        edge_at += k + 1 if k else 0


def _is_buckets(value: object) -> bool:
    return (
        isinstance(value, np.ndarray)
        and value.dtype in (np.float32, np.float64)
        and value.ndim == 2
        and value.shape[1] == 3
    )
