"""The drawing of a scoped graph at a set of expanded scopes: boxes, clusters and edge polylines.

A compound layered layout: each expanded scope (a cluster) is laid out on its own with
:func:`~tbkit.plugins.graphs.layout.layered_layout`, innermost first, and then sits in its
parent's layout as one box of the size it came to. An edge between items of different
clusters is cut into local edges: inside each cluster it leaves, from the member holding
its source to an *exit* port in that cluster's last layer; in the innermost cluster holding
both ends, between the two members holding them; inside each cluster it enters, from an
*entry* port in the first layer to the member holding its target. Every local edge is routed
through its layout's dummy nodes, so an edge bends around boxes instead of crossing them.
Coordinates are pixels of the page's SVG, y growing downwards.

Example:
    >>> from tbkit.plugins.graphs.scopes import ScopedGraph
    >>> g = ScopedGraph.from_rows([
    ...     {"name": "a/x", "op": "Const"}, {"name": "a/y", "op": "Neg", "inputs": ["a/x"]},
    ...     {"name": "z", "op": "Relu", "inputs": ["a/y"]},
    ... ])
    >>> drawn = draw(g, g.normalize(["a"]))
    >>> sorted(n["id"] for n in drawn["nodes"]), [c["id"] for c in drawn["clusters"]]
    (['a/x', 'a/y', 'z'], ['a'])
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tbkit.plugins.graphs.layout import Layout, layered_layout
from tbkit.plugins.graphs.scopes import ScopedGraph, View

__all__ = ["draw", "label_of"]

CHAR_W = 6.4  # the page's node font: about this many pixels per character
MAX_CHARS = 26  # wider labels are cut (the full name is in the details)
OP_H = 24.0
SCOPE_H = 32.0
PAD = 12.0  # inside a cluster, around its content
HEADER = 22.0  # a cluster's title band
MARGIN = 16.0
NODE_SEP = 16.0
RANK_SEP = 34.0

Port = tuple[str, int]  # ("in" | "out", the member the port serves)
End = int | Port  # a local edge's end: a member item, or a port


def label_of(name: str) -> str:
    """The last part of a name (``net/fc/add`` -> ``add``)."""
    return name.rpartition("/")[2] or name


def _width(label: str, extra: float = 0.0) -> float:
    return max(48.0, min(len(label), MAX_CHARS) * CHAR_W + 20.0 + extra)


def _round(v: float) -> float:
    return round(v, 1)


@dataclass
class _Container:
    """A cluster (or the top level) being laid out: its members, ports and local edges."""

    members: list[int]
    ports: dict[Port, int] = field(default_factory=dict)
    pairs: dict[tuple[End, End], int] = field(default_factory=dict)
    out: Layout | None = None
    where: dict[Any, int] = field(default_factory=dict)
    origin: tuple[float, float] = (0.0, 0.0)

    def edge(self, a: End, b: End) -> tuple[End, End]:
        self.pairs.setdefault((a, b), len(self.pairs))
        return (a, b)

    def port(self, side: str, member: int) -> Port:
        key = (side, member)
        self.ports.setdefault(key, len(self.ports))
        return key

    def layout(self, sizes: list[tuple[float, float]]) -> Layout:
        self.where = {m: k for k, m in enumerate(self.members)}
        for key, number in self.ports.items():
            self.where[key] = len(self.members) + number
        boxes = [sizes[m] for m in self.members] + [(0.0, 0.0)] * len(self.ports)
        self.out = layered_layout(
            boxes,
            [(self.where[a], self.where[b]) for a, b in self.pairs],
            node_sep=NODE_SEP,
            rank_sep=RANK_SEP,
            top=[self.where[key] for key in self.ports if key[0] == "in"],
            bottom=[self.where[key] for key in self.ports if key[0] == "out"],
        )
        return self.out

    def point(self, end: End) -> tuple[float, float]:
        k = self.where[end]
        return (self.origin[0] + float(self.out.x[k]), self.origin[1] + float(self.out.y[k]))

    def route(self, a: End, b: End) -> list[tuple[float, float]]:
        ox, oy = self.origin
        return [(ox + x, oy + y) for x, y in self.out.routes[self.pairs[(a, b)]]]


def _chain(view: View, item: int) -> list[int]:
    """The clusters holding ``item``, outermost first, then the item itself."""
    out = [item]
    parent = view.items[item].parent
    while parent >= 0:
        out.append(parent)
        parent = view.items[parent].parent
    return out[::-1]


def _sizes(graph: ScopedGraph, view: View) -> list[tuple[float, float]]:
    """Box sizes of ops and collapsed scopes (clusters get theirs once laid out)."""
    size = [(0.0, 0.0)] * len(view.items)
    for i, item in enumerate(view.items):
        if item.kind == "op":
            size[i] = (_width(label_of(item.name)), OP_H)
        elif item.kind == "scope":
            digits = len(str(graph.op_count[item.index]))
            size[i] = (_width(label_of(item.name), CHAR_W * (digits + 3)), SCOPE_H)
    return size


def draw(graph: ScopedGraph, expanded: frozenset[int]) -> dict[str, Any]:
    """Lay out what ``expanded`` shows; a JSON-ready dict of nodes, clusters and edges.

    Args:
        graph: The scoped graph.
        expanded: Expanded scope indices (with their parents: see :meth:`ScopedGraph.normalize`).

    Returns:
        ``{"width", "height", "nodes", "clusters", "edges", "layout_seconds"}``; nodes and
        clusters carry ``x``, ``y`` (top-left), ``w``, ``h`` and ``parent`` (the cluster's
        name, or None at the top); edges carry ``points`` (``[x0, y0, x1, y1, ...]``).
    """
    started = time.perf_counter()
    view = graph.visible(expanded)
    items = view.items
    n = len(items)
    size = _sizes(graph, view)
    boxes = {-1: _Container(view.roots)}
    for i, item in enumerate(items):
        if item.kind == "cluster":
            boxes[i] = _Container(item.children)

    chains = [_chain(view, i) for i in range(n)]
    plans = []  # per edge: the (container, local edge) steps it follows, source to target
    for edge in view.edges:
        ca, cb = chains[edge.source], chains[edge.target]
        k = 0
        while ca[k] == cb[k]:
            k += 1
        steps: list[tuple[int, tuple[End, End]]] = []
        for i in range(len(ca) - 2, k - 1, -1):  # out of the source's clusters, innermost first
            box = boxes[ca[i]]
            steps.append((ca[i], box.edge(ca[i + 1], box.port("out", ca[i + 1]))))
        common = ca[k - 1] if k else -1
        steps.append((common, boxes[common].edge(ca[k], cb[k])))
        for i in range(k, len(cb) - 1):  # into the target's clusters, outermost first
            box = boxes[cb[i]]
            steps.append((cb[i], box.edge(box.port("in", cb[i + 1]), cb[i + 1])))
        plans.append((edge, steps))

    # innermost clusters first (an item's index is greater than its cluster's), then the top
    shift: dict[int, float] = {}
    for c in sorted(boxes, reverse=True):
        out = boxes[c].layout(size)
        if c >= 0:
            w = max(out.width + 2 * PAD, _width(label_of(items[c].name), CHAR_W * 6))
            size[c] = (w, out.height + PAD + HEADER)
            shift[c] = (w - out.width) / 2

    left = [0.0] * n
    top = [0.0] * n
    for c in sorted(boxes):  # outermost first
        box = boxes[c]
        box.origin = (MARGIN, MARGIN) if c < 0 else (left[c] + shift[c], top[c] + HEADER)
        for k, m in enumerate(box.members):
            left[m] = box.origin[0] + float(box.out.x[k]) - size[m][0] / 2
            top[m] = box.origin[1] + float(box.out.y[k]) - size[m][1] / 2

    drawn_edges = []
    for edge, steps in plans:
        a, b = edge.source, edge.target
        points = [(left[a] + size[a][0] / 2, top[a] + size[a][1])]
        for c, (u, v) in steps:
            box = boxes[c]
            if isinstance(u, tuple):  # entering cluster c at the top, then down to the port
                x, y = box.point(u)
                points.extend(((x, top[c]), (x, y)))
            points.extend(box.route(u, v))
            if isinstance(v, tuple):  # down to the exit port, then out at the bottom
                x, y = box.point(v)
                points.extend(((x, y), (x, top[c] + size[c][1])))
        points.append((left[b] + size[b][0] / 2, top[b]))
        drawn_edges.append(
            {
                "source": items[a].name,
                "target": items[b].name,
                "count": edge.count,
                "control": edge.control,
                "points": [_round(v) for p in points for v in p],
            }
        )

    nodes, clusters = [], []
    for i, item in enumerate(items):
        entry: dict[str, Any] = {
            "id": item.name,
            "label": label_of(item.name),
            "x": _round(left[i]),
            "y": _round(top[i]),
            "w": _round(size[i][0]),
            "h": _round(size[i][1]),
            "parent": items[item.parent].name if item.parent >= 0 else None,
        }
        if item.kind == "op":
            entry.update(kind="op", op=graph.ops[item.index])
            nodes.append(entry)
            continue
        top_ops = graph.scope_ops(item.index, 3)
        entry.update(count=graph.op_count[item.index], ops=[[op, k] for op, k in top_ops])
        if item.kind == "scope":
            entry.update(kind="scope", op=top_ops[0][0] if top_ops else "")
            nodes.append(entry)
        else:
            clusters.append(entry)
    root = boxes[-1].out
    return {
        "width": _round(root.width + 2 * MARGIN),
        "height": _round(root.height + 2 * MARGIN),
        "nodes": nodes,
        "clusters": clusters,
        "edges": drawn_edges,
        "layout_seconds": round(time.perf_counter() - started, 4),
    }
