"""Crossing reduction for the layered layout: each layer's node order (step 4 of
:mod:`tbkit.plugins.graphs.layout`).

A depth-first pass gives each layer a starting order (:func:`initial_orders`); barycenter
sweeps down and up the layers then reorder them, keeping the order with the fewest edge
crossings (:func:`count_crossings`, an inversion count in NumPy).

Example:
    >>> import numpy as np
    >>> count_crossings(np.array([0, 1]), np.array([1, 0]))
    1
"""

from __future__ import annotations

import numpy as np

__all__ = ["Layered", "count_crossings", "initial_orders", "order_layers"]


def _inversions(values: np.ndarray) -> int:
    """Pairs ``i < j`` with ``values[i] > values[j]`` (non-negative ints), bit by bit in NumPy."""
    if len(values) < 2:
        return 0
    total = 0
    index = np.arange(len(values))
    for bit in range(int(values.max()).bit_length() - 1, -1, -1):
        group = values >> (bit + 1)
        order = np.lexsort((index, group))
        g = group[order]
        ones = ((values[order] >> bit) & 1).astype(np.int64)
        seen = np.cumsum(ones)
        starts = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
        before = np.repeat(np.concatenate(([0], seen[starts[1:] - 1])), np.diff(np.append(starts, len(g))))
        total += int((seen - before)[ones == 0].sum())
    return total


def count_crossings(upper_pos: np.ndarray, lower_pos: np.ndarray) -> int:
    """Crossings among the edges between two adjacent layers, given each edge's endpoint positions."""
    if len(upper_pos) < 2:
        return 0
    order = np.lexsort((lower_pos, upper_pos))
    return _inversions(lower_pos[order])


class Layered:
    """The proper layered graph (every edge spans one layer) that ordering and placement work on.

    Args:
        layer: Each node's layer.
        edges: ``(upper, lower)`` node pairs, each spanning one layer.
    """

    def __init__(self, layer: np.ndarray, edges: list[tuple[int, int]]) -> None:
        self.n = len(layer)
        self.layer = layer
        self.depth = int(layer.max()) + 1 if self.n else 0
        src = np.fromiter((u for u, _ in edges), dtype=np.int64, count=len(edges))
        dst = np.fromiter((v for _, v in edges), dtype=np.int64, count=len(edges))
        self.src, self.dst = src, dst
        # edges grouped by the layer of their upper end
        by_layer = np.argsort(layer[src], kind="stable") if len(src) else np.zeros(0, np.int64)
        bounds = np.searchsorted(layer[src][by_layer], np.arange(self.depth + 1)) if len(src) else None
        self.pairs: list[tuple[np.ndarray, np.ndarray]] = []
        for lay in range(max(self.depth - 1, 0)):
            if bounds is None:
                self.pairs.append((np.zeros(0, np.int64), np.zeros(0, np.int64)))
            else:
                sel = by_layer[bounds[lay] : bounds[lay + 1]]
                self.pairs.append((src[sel], dst[sel]))

    def crossings(self, pos: np.ndarray) -> int:
        return sum(count_crossings(pos[u], pos[v]) for u, v in self.pairs)


def order_layers(
    layered: Layered, initial: list[np.ndarray], sweeps: int = 8
) -> tuple[list[np.ndarray], int]:
    """Barycenter sweeps: the node order of each layer with the fewest crossings found.

    Args:
        layered: The proper layered graph.
        initial: Each layer's nodes in their starting order.
        sweeps: At most this many down-and-up sweeps (stops after two without improvement).

    Returns:
        ``(orders, crossings)``.
    """
    n = layered.n
    pos = np.zeros(n, dtype=np.float64)
    orders = [o.copy() for o in initial]
    for o in orders:
        pos[o] = np.arange(len(o))
    best_orders = [o.copy() for o in orders]
    best = layered.crossings(pos.astype(np.int64))
    stale = 0
    for _ in range(sweeps):
        if best == 0:
            break
        for down in (True, False):
            layers = range(1, layered.depth) if down else range(layered.depth - 2, -1, -1)
            for lay in layers:
                if down:
                    fixed, free = layered.pairs[lay - 1]
                else:
                    free, fixed = layered.pairs[lay]
                order = orders[lay]
                if len(order) < 2 or len(free) == 0:
                    continue
                sums = np.bincount(free, weights=pos[fixed], minlength=n)[order]
                counts = np.bincount(free, minlength=n)[order]
                current = pos[order]
                # a node without neighbours there keeps its place; others go to their barycenter
                bary = np.where(counts > 0, sums / np.maximum(counts, 1), current)
                new = order[np.lexsort((current, bary))]
                orders[lay] = new
                pos[new] = np.arange(len(new))
        found = layered.crossings(pos.astype(np.int64))
        if found < best:
            best, best_orders, stale = found, [o.copy() for o in orders], 0
        else:
            stale += 1
            if stale >= 2:
                break
    return best_orders, best


def initial_orders(layered: Layered) -> list[np.ndarray]:
    """A starting order per layer: depth-first discovery from the top, so connected nodes start close."""
    succs: list[list[int]] = [[] for _ in range(layered.n)]
    for u, v in zip(layered.src.tolist(), layered.dst.tolist(), strict=True):
        succs[u].append(v)
    seen = np.zeros(layered.n, dtype=bool)
    rank = np.zeros(layered.n, dtype=np.int64)
    counter = 0
    for root in np.argsort(layered.layer, kind="stable").tolist():
        if seen[root]:
            continue
        stack = [root]
        seen[root] = True
        while stack:
            node = stack.pop()
            rank[node] = counter
            counter += 1
            for t in reversed(succs[node]):
                if not seen[t]:
                    seen[t] = True
                    stack.append(t)
    by_layer: list[list[int]] = [[] for _ in range(layered.depth)]
    for node in np.argsort(rank, kind="stable").tolist():
        by_layer[int(layered.layer[node])].append(node)
    return [np.asarray(nodes, dtype=np.int64) for nodes in by_layer]
