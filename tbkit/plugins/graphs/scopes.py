"""An op graph grouped by name scope: which scopes exist, what a set of expanded scopes shows.

Names split at ``/`` into scopes (``net/fc/add`` lives in ``net/fc``, inside ``net``). A
node whose name is also a scope (``a`` next to ``a/b``) is kept inside that scope. Inputs
are node names with an optional ``^`` (a control input) and ``:k`` (the ``k``-th output);
an input naming no node of the graph is kept for the details but draws no edge. Scopes
nest :data:`MAX_DEPTH` levels at most.

:meth:`ScopedGraph.visible` answers what the page shows for a set of expanded scopes:
every op whose scopes are all expanded, every collapsed scope whose parents are, and the
edges between them (one per pair, with how many op edges it stands for).

Example:
    >>> g = ScopedGraph.from_rows([
    ...     {"name": "x", "op": "Placeholder", "inputs": []},
    ...     {"name": "fc/w", "op": "Const", "inputs": []},
    ...     {"name": "fc/mul", "op": "MatMul", "inputs": ["x", "fc/w"]},
    ... ])
    >>> view = g.visible(set())
    >>> [(item.name, item.kind) for item in view.items]
    [('x', 'op'), ('fc', 'scope')]
    >>> [(view.items[e.source].name, view.items[e.target].name) for e in view.edges]
    [('x', 'fc')]
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_DEPTH", "ROOT", "ScopedGraph", "View", "VisibleEdge", "VisibleItem", "input_name"]

ROOT = 0  # the index of the root scope (name "")
# Scopes nest this deep at most: an op deeper down is drawn in its scope at this depth (a
# hostile 3,000-level name would otherwise cost memory quadratic in its length).
MAX_DEPTH = 256


def _is_scope(name: str, ordered: Sequence[str]) -> bool:
    """Whether another of the sorted names ``ordered`` lies under ``name`` (``name/...``)."""
    below = name + "/"
    i = bisect.bisect_left(ordered, below)
    return i < len(ordered) and ordered[i].startswith(below)


def _capped(scope: str) -> str:
    """``scope`` cut to its first :data:`MAX_DEPTH` levels (deeper ones are drawn in the last)."""
    if scope.count("/") < MAX_DEPTH:
        return scope
    return "/".join(scope.split("/", MAX_DEPTH)[:MAX_DEPTH])


def input_name(raw: str, names: Mapping[str, int]) -> tuple[str, bool]:
    """The node an input refers to and whether it is a control input (``^name``, ``name:1``)."""
    control = raw.startswith("^")
    name = raw[1:] if control else raw
    if name not in names:
        base, sep, index = name.rpartition(":")
        if sep and index.isdigit():
            name = base
    return name, control


@dataclass
class VisibleItem:
    """One thing the page draws: an op, a collapsed scope (a box) or an expanded scope (a cluster).

    Attributes:
        kind: ``"op"``, ``"scope"`` (collapsed) or ``"cluster"`` (expanded).
        index: The op's or the scope's index in the :class:`ScopedGraph`.
        name: The op's or the scope's full name.
        parent: The index (in :attr:`View.items`) of the cluster it is drawn in; -1 at the top.
        children: For a cluster, the indices of the items drawn inside it.
    """

    kind: str
    index: int
    name: str
    parent: int
    children: list[int] = field(default_factory=list)


@dataclass
class VisibleEdge:
    """An edge between two visible items (never a cluster), standing for ``count`` op edges."""

    source: int
    target: int
    count: int
    control: bool


@dataclass
class View:
    """What a set of expanded scopes shows: items (the root's children have parent -1) and edges."""

    items: list[VisibleItem]
    edges: list[VisibleEdge]
    roots: list[int]


class ScopedGraph:
    """The ops of a graph, their edges and their name scopes.

    Attributes:
        names: Each op's full name.
        ops: Each op's type.
        rows: The rows it was built from (details: inputs, device, shape, attributes).
        op_scope: Each op's scope index.
        scope_names: Each scope's full name (index 0 is the root, ``""``).
        scope_parent: Each scope's parent scope (-1 for the root).
        child_scopes: Each scope's child scopes, in first-seen order.
        child_ops: Each scope's own ops, in graph order.
        op_count: Each scope's ops, all levels down.
        edges: ``(source op, target op, control)`` for every input naming an op of the graph.
    """

    def __init__(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.rows = list(rows)
        self.names = [str(r["name"]) for r in self.rows]
        self.ops = [str(r.get("op", "")) for r in self.rows]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.scope_names: list[str] = [""]
        self.scope_parent: list[int] = [-1]
        self.scope_index: dict[str, int] = {"": ROOT}
        self.child_scopes: list[list[int]] = [[]]
        ordered = sorted(self.names)
        self.op_scope: list[int] = []
        for name in self.names:
            home = name if _is_scope(name, ordered) else name.rpartition("/")[0]
            self.op_scope.append(self._scope(_capped(home)))
        self.child_ops: list[list[int]] = [[] for _ in self.scope_names]
        for op, scope in enumerate(self.op_scope):
            self.child_ops[scope].append(op)
        self.op_count = [0] * len(self.scope_names)
        for scope in self.op_scope:
            s = scope
            while s >= 0:
                self.op_count[s] += 1
                s = self.scope_parent[s]
        self.edges: list[tuple[int, int, bool]] = []
        self.consumers: list[list[int]] = [[] for _ in self.names]
        for target, row in enumerate(self.rows):
            for raw in row.get("inputs") or ():
                name, control = input_name(str(raw), self.index)
                source = self.index.get(name)
                if source is not None:
                    self.edges.append((source, target, control))
                    self.consumers[source].append(target)

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> ScopedGraph:
        """Build from rows with ``name``, ``op`` and ``inputs`` (as :func:`node_rows` gives)."""
        return cls(rows)

    def _scope(self, name: str) -> int:
        """The index of scope ``name``, created (with its parents) when new."""
        missing = []  # the scope and its parents not seen yet, innermost first
        while name not in self.scope_index:
            missing.append(name)
            name = name.rpartition("/")[0] if "/" in name else ""
        parent = self.scope_index[name]
        for created in reversed(missing):
            index = len(self.scope_names)
            self.scope_names.append(created)
            self.scope_parent.append(parent)
            self.scope_index[created] = index
            self.child_scopes.append([])
            self.child_scopes[parent].append(index)
            parent = index
        return parent

    def ancestors(self, scope: int) -> list[int]:
        """The scope and its parents up to (not including) the root, outermost first."""
        out = []
        while scope > ROOT:
            out.append(scope)
            scope = self.scope_parent[scope]
        return out[::-1]

    def scope_ops(self, scope: int, top: int = 5) -> list[tuple[str, int]]:
        """The most common op types in a scope, all levels down."""
        counts: Counter[str] = Counter()
        stack = [scope]
        while stack:
            s = stack.pop()
            counts.update(self.ops[i] for i in self.child_ops[s])
            stack.extend(self.child_scopes[s])
        return counts.most_common(top)

    def op_types(self) -> list[tuple[str, int]]:
        """Every op type with its count in the graph, commonest first (ties by name)."""
        return sorted(Counter(self.ops).items(), key=lambda item: (-item[1], item[0]))

    def normalize(self, expanded: Iterable[str]) -> frozenset[int]:
        """The scope indices of ``expanded`` names (unknown ones dropped) with their parents added."""
        out: set[int] = set()
        for name in expanded:
            scope = self.scope_index.get(_capped(name))
            if scope is not None and scope != ROOT:
                out.update(self.ancestors(scope))
        return frozenset(out)

    def default_expanded(self) -> frozenset[int]:
        """What opens first: while the top level is a single scope (a model's name), open it."""
        out: set[int] = set()
        scope = ROOT
        while not self.child_ops[scope] and len(self.child_scopes[scope]) == 1:
            scope = self.child_scopes[scope][0]
            out.add(scope)
        return frozenset(out)

    def all_scopes(self) -> frozenset[int]:
        """Every scope but the root (everything expanded)."""
        return frozenset(range(1, len(self.scope_names)))

    def visible(self, expanded: frozenset[int] | set[int]) -> View:
        """The items and edges shown when the scopes ``expanded`` are open (parents must be too)."""
        items: list[VisibleItem] = []
        op_item = [0] * len(self.names)
        roots: list[int] = []

        def collapse(scope: int, item: int) -> None:
            stack = [scope]
            while stack:
                s = stack.pop()
                for op in self.child_ops[s]:
                    op_item[op] = item
                stack.extend(self.child_scopes[s])

        stack: list[tuple[int, int]] = [(ROOT, -1)]
        while stack:
            scope, parent_item = stack.pop()
            members = roots if parent_item < 0 else items[parent_item].children
            for op in self.child_ops[scope]:
                op_item[op] = len(items)
                members.append(len(items))
                items.append(VisibleItem("op", op, self.names[op], parent_item))
            for child in self.child_scopes[scope]:
                index = len(items)
                members.append(index)
                if child in expanded:
                    items.append(VisibleItem("cluster", child, self.scope_names[child], parent_item))
                    stack.append((child, index))
                else:
                    items.append(VisibleItem("scope", child, self.scope_names[child], parent_item))
                    collapse(child, index)
        counts: dict[tuple[int, int], list[int]] = {}
        for source, target, control in self.edges:
            a, b = op_item[source], op_item[target]
            if a == b:
                continue
            entry = counts.get((a, b))
            if entry is None:
                counts[(a, b)] = [1, 1 if control else 0]
            else:
                entry[0] += 1
                entry[1] += 1 if control else 0
        edges = [VisibleEdge(a, b, n, c == n) for (a, b), (n, c) in counts.items()]
        return View(items, edges, roots)
