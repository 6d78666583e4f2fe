"""A layered (Sugiyama-style) layout of a directed graph of boxes, in Python and NumPy.

The steps, each a function of this module:

1. :func:`break_cycles`: a depth-first search reverses the edges that close a cycle.
2. :func:`assign_layers`: longest path from the sources; a source is then pulled down to
   just above its nearest successor (constants and weights sit next to their user), and
   nodes without any edge are wrapped into rows under the graph.
3. Edges spanning several layers get one dummy node per layer crossed.
4. :func:`order_layers`: barycenter sweeps down and up the layers; the order with the fewest
   crossings (:func:`count_crossings`) is kept.
5. :func:`assign_x`: each layer is placed as close as possible to the mean position of each
   node's neighbours, keeping the order and a minimum gap: a weighted isotonic regression
   (pool adjacent violators), alternating over the neighbours above, below and both.

Edges come back as bend points through the dummies, so the caller draws them as polylines.

Example:
    >>> out = layered_layout([(40, 20)] * 3, [(0, 1), (1, 2), (0, 2)])
    >>> [round(float(y)) for y in out.y]
    [10, 66, 122]
    >>> len(out.routes[2])  # the long edge bends once, at its dummy node
    1
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from tbkit.plugins.graphs.ordering import Layered, count_crossings, initial_orders, order_layers

__all__ = [
    "Layout",
    "assign_layers",
    "assign_x",
    "break_cycles",
    "count_crossings",
    "layered_layout",
    "order_layers",
]

DUMMY_WEIGHT = 2.0  # a long edge's dummies resist moving more than real nodes: long edges stay straight


@dataclass
class Layout:
    """Where :func:`layered_layout` put things.

    Attributes:
        x: Each node's centre x.
        y: Each node's centre y.
        width: The drawing's width (every box inside ``[0, width]``).
        height: The drawing's height.
        routes: Per input edge, its bend points ``(x, y)`` from source to target (empty for a
            short edge, a self-loop or a duplicate's copy).
        layers: Each node's layer (0 at the top).
        crossings: Edge crossings between adjacent layers in the order kept.
    """

    x: np.ndarray
    y: np.ndarray
    width: float
    height: float
    routes: list[list[tuple[float, float]]]
    layers: np.ndarray
    crossings: int


def break_cycles(n: int, edges: Sequence[tuple[int, int]]) -> list[bool]:
    """Which edges to reverse so that the graph becomes acyclic (a DFS's back edges).

    Args:
        n: Number of nodes.
        edges: ``(source, target)`` pairs without self-loops.

    Returns:
        One flag per edge: True for an edge that closes a cycle.
    """
    out_edges: list[list[int]] = [[] for _ in range(n)]
    for i, (u, _) in enumerate(edges):
        out_edges[u].append(i)
    state = [0] * n  # 0 unseen, 1 on the stack, 2 done
    reverse = [False] * len(edges)
    for root in range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            node, k = stack[-1]
            if k < len(out_edges[node]):
                stack[-1] = (node, k + 1)
                i = out_edges[node][k]
                target = edges[i][1]
                if state[target] == 1:
                    reverse[i] = True
                elif state[target] == 0:
                    state[target] = 1
                    stack.append((target, 0))
            else:
                state[node] = 2
                stack.pop()
    return reverse


def assign_layers(
    n: int,
    dag: Sequence[tuple[int, int]],
    isolated_per_row: int | None = None,
    *,
    top: Collection[int] = (),
    bottom: Collection[int] = (),
) -> np.ndarray:
    """Layers of an acyclic graph's nodes (0 at the top), every edge pointing downwards.

    Args:
        n: Number of nodes.
        dag: Acyclic ``(source, target)`` pairs.
        isolated_per_row: How many edgeless nodes share a row under the graph (default:
            about the square root of their number, at least 8).
        top: Nodes (sources only) to put in a first layer of their own.
        bottom: Nodes (sinks only) to put in a last layer of their own.

    Returns:
        An int array of ``n`` layers.
    """
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    for u, v in dag:
        succs[u].append(v)
        preds[v].append(u)
    indegree = [len(p) for p in preds]
    queue = [v for v in range(n) if indegree[v] == 0]
    topo: list[int] = []
    while queue:
        node = queue.pop()
        topo.append(node)
        for t in succs[node]:
            indegree[t] -= 1
            if indegree[t] == 0:
                queue.append(t)
    if len(topo) != n:
        raise ValueError("assign_layers needs an acyclic graph")
    layer = [0] * n
    for node in topo:
        for t in succs[node]:
            if layer[t] <= layer[node]:
                layer[t] = layer[node] + 1
    for node in reversed(topo):  # pull sources down next to their first user
        if not preds[node] and succs[node]:
            layer[node] = min(layer[t] for t in succs[node]) - 1
    top, bottom = set(top), set(bottom)
    pinned = top | bottom
    isolated = [v for v in range(n) if not preds[v] and not succs[v] and v not in pinned]
    if isolated and len(isolated) < n:
        per_row = isolated_per_row or max(8, math.ceil(math.sqrt(len(isolated))))
        base = max(layer) + 1
        for k, v in enumerate(isolated):
            layer[v] = base + k // per_row
    elif isolated:
        per_row = isolated_per_row or max(8, math.ceil(math.sqrt(len(isolated))))
        for k, v in enumerate(isolated):
            layer[v] = k // per_row
    if pinned:
        free = [layer[v] for v in range(n) if v not in pinned]
        shift = 1 if top else 0
        last = (max(free) + shift + 1) if free else shift
        for v in range(n):
            layer[v] = 0 if v in top else last if v in bottom else layer[v] + shift
    # no empty layer (moved sources and pins can leave one): keep the order, close the gaps
    return np.unique(np.asarray(layer, dtype=np.int64), return_inverse=True)[1].reshape(-1)


def _pav(z: list[float], w: list[float], bounds: list[int]) -> list[float]:
    """Isotonic regression of each run ``z[bounds[k]:bounds[k+1]]``: non-decreasing values closest
    to ``z`` in weighted least squares (pool adjacent violators), all runs in one pass."""
    out: list[float] = []
    for lo, hi in itertools.pairwise(bounds):
        means: list[float] = []
        weights: list[float] = []
        sizes: list[int] = []
        for i in range(lo, hi):
            mean, total, size = z[i], w[i], 1
            while means and means[-1] > mean:
                pm, pw = means.pop(), weights.pop()
                mean = (pm * pw + mean * total) / (pw + total)
                total += pw
                size += sizes.pop()
            means.append(mean)
            weights.append(total)
            sizes.append(size)
        for mean, size in zip(means, sizes, strict=True):
            out.extend([mean] * size)
    return out


def assign_x(
    layered: Layered,
    orders: list[np.ndarray],
    widths: np.ndarray,
    dummy: np.ndarray,
    node_sep: float,
    passes: int = 4,
) -> np.ndarray:
    """Centre x of every node: near its neighbours' mean, in order, boxes ``node_sep`` apart.

    Each layer is placed by a weighted isotonic regression: with ``x = y + offset`` (offset the
    packed position), keeping the gaps is keeping ``y`` non-decreasing.

    Args:
        layered: The proper layered graph.
        orders: Each layer's nodes, left to right.
        widths: Each node's width (0 for dummies).
        dummy: Which nodes are dummies (they keep ``node_sep / 2`` apart, and weigh more).
        node_sep: The gap between two real boxes.
        passes: Rounds of (down, up, both) placement.

    Returns:
        A float array of centre x.
    """
    n = layered.n
    flat = np.concatenate(orders) if orders else np.zeros(0, np.int64)
    bounds = np.concatenate(([0], np.cumsum([len(o) for o in orders]))).astype(np.int64)
    sep = np.where(dummy, node_sep / 4, node_sep / 2)[flat]
    half = widths[flat] / 2 + sep
    steps = np.zeros(len(flat))
    steps[1:] = half[:-1] + half[1:]
    starts = np.minimum(bounds[:-1], max(len(flat) - 1, 0))  # (an empty layer repeats 0 times)
    steps[bounds[:-1][bounds[:-1] < len(flat)]] = 0.0  # each layer starts again at 0
    offsets = np.cumsum(steps)
    if len(flat):
        offsets -= np.repeat(offsets[starts], np.diff(bounds))
    last = offsets[np.clip(bounds[1:] - 1, 0, None)] if len(flat) else np.zeros(len(orders))
    x = np.zeros(n, dtype=np.float64)
    x[flat] = offsets - np.repeat(last / 2, np.diff(bounds))  # each layer packed, centred on 0
    weight = np.where(dummy, DUMMY_WEIGHT, 1.0)[flat].tolist()
    bound_list = bounds.tolist()
    src, dst = layered.src, layered.dst
    down_counts = np.bincount(dst, minlength=n)
    up_counts = np.bincount(src, minlength=n)
    for _ in range(passes):
        for mode in ("down", "up", "both"):
            if mode == "down":
                sums, counts = np.bincount(dst, weights=x[src], minlength=n), down_counts
            elif mode == "up":
                sums, counts = np.bincount(src, weights=x[dst], minlength=n), up_counts
            else:
                sums = np.bincount(dst, weights=x[src], minlength=n)
                sums += np.bincount(src, weights=x[dst], minlength=n)
                counts = down_counts + up_counts
            want = np.where(counts > 0, sums / np.maximum(counts, 1), x)
            z = (want[flat] - offsets).tolist()
            x[flat] = np.asarray(_pav(z, weight, bound_list)) + offsets
    return x


def layered_layout(
    sizes: Sequence[tuple[float, float]],
    edges: Sequence[tuple[int, int]],
    *,
    node_sep: float = 16.0,
    rank_sep: float = 36.0,
    sweeps: int = 8,
    top: Collection[int] = (),
    bottom: Collection[int] = (),
) -> Layout:
    """Lay out boxes and directed edges top to bottom.

    Args:
        sizes: ``(width, height)`` of each node.
        edges: ``(source, target)`` node indices; self-loops and duplicates are allowed (not drawn
            twice: their routes are empty).
        node_sep: Horizontal gap between boxes of a layer.
        rank_sep: Vertical gap between layers.
        sweeps: Most barycenter sweeps for crossing reduction.
        top: Nodes with out-edges only, put in a first layer of their own (a cluster's entries).
        bottom: Nodes with in-edges only, put in a last layer of their own (its exits).

    Returns:
        A :class:`Layout`.
    """
    n = len(sizes)
    routes: list[list[tuple[float, float]]] = [[] for _ in edges]
    if n == 0:
        return Layout(np.zeros(0), np.zeros(0), 0.0, 0.0, routes, np.zeros(0, np.int64), 0)
    size = np.asarray(sizes, dtype=np.float64).reshape(n, 2)
    unique: dict[tuple[int, int], int] = {}
    first_of: list[int] = []  # per unique edge: the input edge it routes
    for i, (u, v) in enumerate(edges):
        if u == v or not (0 <= u < n and 0 <= v < n):
            continue
        if (u, v) not in unique:
            unique[(u, v)] = len(first_of)
            first_of.append(i)
    plain = list(unique)
    flipped = break_cycles(n, plain)
    dag = [(v, u) if f else (u, v) for (u, v), f in zip(plain, flipped, strict=True)]
    deduped = list(dict.fromkeys(dag))  # a 2-cycle becomes one edge both ways
    layer = assign_layers(n, deduped, top=top, bottom=bottom)

    # dummies for long edges
    layers = layer.tolist()
    proper: list[tuple[int, int]] = []
    chains: dict[tuple[int, int], list[int]] = {}
    total = n
    for u, v in deduped:
        span = layers[v] - layers[u]
        chain = list(range(total, total + span - 1))
        total += span - 1
        layers.extend(range(layers[u] + 1, layers[v]))
        path = [u, *chain, v]
        proper.extend(itertools.pairwise(path))
        chains[(u, v)] = chain
    all_layer = np.asarray(layers, dtype=np.int64)
    layered = Layered(all_layer, proper)
    orders, crossings = order_layers(layered, initial_orders(layered), sweeps)

    dummy = np.zeros(total, dtype=bool)
    dummy[n:] = True
    widths = np.r_[size[:, 0], np.zeros(total - n)]
    x = assign_x(layered, orders, widths, dummy, node_sep)
    heights = np.zeros(layered.depth)
    np.maximum.at(heights, layer, size[:, 1])
    tops = np.r_[0.0, np.cumsum(heights + rank_sep)][: layered.depth]
    y = tops[all_layer] + heights[all_layer] / 2
    left = float(np.min(x[:n] - size[:, 0] / 2))
    if total > n:
        left = min(left, float(x[n:].min()))
    x -= left
    width = float(max(np.max(x[:n] + size[:, 0] / 2), x[n:].max() if total > n else 0.0))
    height = float(tops[-1] + heights[-1])

    for (u, v), f, i in zip(plain, flipped, first_of, strict=True):
        key = (v, u) if f else (u, v)
        chain = chains.get(key, [])
        points = [(float(x[d]), float(y[d])) for d in chain]
        routes[i] = points[::-1] if f else points
    return Layout(x[:n].copy(), y[:n].copy(), width, height, routes, layer, int(crossings))
