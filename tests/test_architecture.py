"""The import contract: which layer may import which, and no import cycles.

Every module under ``tbkit/`` is parsed (not imported) with :mod:`ast`. The layer rules
count imports at any depth: inside functions and under ``if TYPE_CHECKING:`` too (a lazy
import is still a dependency). The cycle rules count the imports that run: those a module
runs when it is imported (module level, outside ``if TYPE_CHECKING:``), and, in a second
rule, lazy ones inside functions too.

An import names the module it loads: ``from tbkit.plugins import web`` imports
``tbkit.plugins.web`` when that module exists, else the package ``tbkit.plugins``. Imports
by name at run time (the plugin registry's ``importlib.import_module``) are not seen: that
is how core code reaches a kind without naming it.

The layers, lowest first (``DESIGN.md``): ``errors`` · ``proto``, leaf helpers, ``provider``
· ``record`` · ``plugins`` · ``writer`` | ``reader`` · ``server``, ``integrations`` · ``cli``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tbkit"

# Private top-level helpers any layer may use: they import nothing above errors and protos.
LEAF_HELPERS = ("tbkit._arrays", "tbkit._memory", "tbkit._progress", "tbkit._tensors", "tbkit._version")
BASE = ("tbkit.errors", "tbkit.proto", *LEAF_HELPERS)
# What sits above the plugins, by package; the top-level shims that re-export them
# (tbkit.demo, tbkit.torch, tbkit.keras, ...) are kept out by the allow-lists below.
ABOVE_PLUGINS = (
    "tbkit.reader",
    "tbkit.server",
    "tbkit.writer",
    "tbkit.cli",
    "tbkit.commands",
    "tbkit.integrations",
)


@dataclass(frozen=True)
class Import:
    """One import of a tbkit module: who imports what, where, and when it runs."""

    source: str  # the importing module
    target: str  # the imported tbkit module or package
    line: int
    runtime: bool  # False: only under ``if TYPE_CHECKING:``
    top_level: bool  # runs when ``source`` is imported (module level, not TYPE_CHECKING-only)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(
    body: list[ast.stmt] | list[ast.AST], runtime: bool, top_level: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import statement under ``body``, with whether it runs at all and on import."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, runtime, top_level
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(list(ast.iter_child_nodes(node)), runtime, False)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.body, False, False)
            yield from _walk(node.orelse, runtime, top_level)
        else:
            yield from _walk(list(ast.iter_child_nodes(node)), runtime, top_level)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The tbkit module ``name`` loads: itself, or the nearest enclosing module that exists."""
    if name != "tbkit" and not name.startswith("tbkit."):
        return None
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in modules else None


def imports_in(module: str, source: str, *, is_package: bool, modules: dict[str, Path]) -> list[Import]:
    """The tbkit imports in the text ``source`` of ``module``."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node, runtime, top_level in _walk(ast.parse(source).body, True, True):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import name``: the submodule pkg.name when there is one, else pkg.
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for name in dict.fromkeys(names):
            target = _resolve(name, modules)
            if target is not None and target != module:
                out.append(Import(module, target, node.lineno, runtime, top_level))
    return out


IMPORTS = [
    imp
    for module, path in MODULES.items()
    for imp in imports_in(
        module, path.read_text(encoding="utf-8"), is_package=path.name == "__init__.py", modules=MODULES
    )
]


def _under(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _is_provider(module: str) -> bool:
    """The provider: the package ``tbkit.provider`` and its modules."""
    return _under(module, "tbkit.provider")


def _breaches(is_source: Callable[[str], bool], allowed: Callable[[str], bool]) -> str:
    found = [
        f"  {i.source} (line {i.line}) imports {i.target}"
        for i in IMPORTS
        if is_source(i.source) and not allowed(i.target)
    ]
    return "\n".join(found)


def test_the_parser_sees_every_form_of_import() -> None:
    """Relative, lazy, TYPE_CHECKING-only, aliased and ``from pkg import module`` imports."""
    modules = dict.fromkeys(["tbkit", "tbkit.a", "tbkit.a.b", "tbkit.a.c", "tbkit.d", "tbkit.e"], Path())
    source = (
        "from typing import TYPE_CHECKING\n"
        "import numpy\n"
        "from . import c\n"  # a module of the package
        "from tbkit import errors_not_a_module\n"  # a name from tbkit/__init__.py
        "import tbkit.d as dee\n"
        "if TYPE_CHECKING:\n"
        "    from tbkit.e import Thing\n"
        "def f():\n"
        "    from ..d import x\n"
    )
    found = imports_in("tbkit.a.b", source, is_package=False, modules=modules)
    assert [(i.target, i.line, i.runtime, i.top_level) for i in found] == [
        ("tbkit.a.c", 3, True, True),
        ("tbkit", 4, True, True),
        ("tbkit.d", 5, True, True),
        ("tbkit.e", 7, False, False),
        ("tbkit.d", 9, True, False),
    ]
    assert len(MODULES) > 100 and all(i.target in MODULES for i in IMPORTS)


def test_leaf_helpers_are_leaves() -> None:
    """What every layer may use imports nothing above errors and protos."""
    assert not (breaches := _breaches(lambda m: m in LEAF_HELPERS, lambda t: _under(t, *BASE))), breaches


def test_plugins_import_only_the_provider_record_layer_protos_errors_and_leaf_helpers() -> None:
    """A plugin reads data only through the provider: not the reader, server, writer, CLI or integrations."""
    allowed = ("tbkit.plugins", "tbkit.record", *BASE)
    breaches = _breaches(
        lambda m: _under(m, "tbkit.plugins"), lambda t: _under(t, *allowed) or _is_provider(t)
    )
    assert not breaches, "plugins import what they must not:\n" + breaches
    assert not any(_under(p, *allowed) for p in ABOVE_PLUGINS)


def test_provider_imports_nothing_above_it() -> None:
    """The provider is a low layer: no implementation (reader), no kind (plugins), no record layer, server,
    writer, CLI or integrations; only errors, protos, leaf helpers and its own modules."""
    breaches = _breaches(_is_provider, lambda t: _is_provider(t) or _under(t, *BASE))
    assert not breaches, "the provider imports layers above it:\n" + breaches


def test_record_layer_imports_only_errors_and_protos() -> None:
    """The record layer, which the writer and the reader share, sits on errors and protos alone."""
    breaches = _breaches(lambda m: _under(m, "tbkit.record"), lambda t: _under(t, "tbkit.record", *BASE))
    assert not breaches, "the record layer imports layers above it:\n" + breaches


def test_writer_imports_no_reader_server_cli_or_integrations() -> None:
    """Training scripts pay nothing for reading or serving."""
    above = (
        "tbkit.reader",
        "tbkit.server",
        "tbkit.cli",
        "tbkit.commands",
        "tbkit.integrations",
        "tbkit.demo",
    )
    breaches = _breaches(lambda m: _under(m, "tbkit.writer"), lambda t: not _under(t, *above))
    assert not breaches, "the writer imports layers above it:\n" + breaches


def loops(edges: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """Per loop (a strongly connected component with a cycle, by Tarjan's algorithm): a shortest
    cycle through its first module (``a, b, ..., a``) and all its modules, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:  # recursion depth is at most the module count (~250)
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [(_shortest_cycle(c, edges), c) for c in sorted(components)]


def _shortest_cycle(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the component's first module, inside the component (breadth first)."""
    start, members = component[0], set(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(edges.get(node, set()) & members):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {component}")


def test_the_cycle_finder_reports_one_path_per_loop() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}, "g": {"g"}}
    assert [cycle for cycle, _ in loops(edges)] == [["a", "b", "c", "a"], ["e", "f", "e"], ["g", "g"]]
    assert loops({"a": {"b", "c"}, "b": {"a"}, "c": {"b"}}) == [(["a", "b", "a"], ["a", "b", "c"])]
    assert loops({"a": {"b"}, "b": set()}) == []


def _report(which: Callable[[Import], bool]) -> str:
    """Each loop among the imports ``which`` keeps: a cycle through it, and all its modules when more."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if which(imp):
            edges[imp.source].add(imp.target)
    lines = []
    for cycle, members in loops(edges):
        others = sorted(set(members) - set(cycle))
        lines.append(
            "  " + " -> ".join(cycle) + (f"   (the loop also holds {', '.join(others)})" if others else "")
        )
    return "\n".join(lines)


def test_no_import_cycles() -> None:
    """No modules import each other, directly or through others, when they are imported."""
    found = _report(lambda i: i.top_level)
    assert not found, "import cycles (module-level imports):\n" + found


def test_no_import_cycles_through_lazy_imports() -> None:
    """Nor through imports inside functions: a lazy import that closes a loop only hides it."""
    found = _report(lambda i: i.runtime)
    assert not found, "import cycles (counting imports inside functions):\n" + found


@pytest.mark.parametrize("rule", ["plugins", "provider", "cycles"])
def test_rules_catch_a_breach(rule: str) -> None:
    """Each rule, fed one bad import, fails."""
    bad = {
        "plugins": Import("tbkit.plugins.scalars.groups", "tbkit.reader.index", 1, True, False),
        "provider": Import("tbkit.provider", "tbkit.plugins.hparams.api", 1, False, False),
        "cycles": Import("tbkit.errors", "tbkit.plugins.web", 1, True, True),
    }[rule]
    test = {
        "plugins": test_plugins_import_only_the_provider_record_layer_protos_errors_and_leaf_helpers,
        "provider": test_provider_imports_nothing_above_it,
        "cycles": test_no_import_cycles,
    }[rule]
    IMPORTS.append(bad)
    try:
        with pytest.raises(AssertionError, match=bad.target.replace(".", r"\.")):
            test()
    finally:
        IMPORTS.remove(bad)
