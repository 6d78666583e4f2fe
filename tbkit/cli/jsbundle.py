"""Inline first-party ES modules into one classic script, for a page opened without a server.

Browsers refuse ``import`` between ``file://`` modules, so ``tbkit report`` inlines the
server's chart modules (``tbkit/server/static/chart.js`` and what it imports) as they are:
each module becomes a function scope whose exports are returned as an object, and each
``import { a, b as c } from "./x.js"`` becomes ``const { a, b: c } = <module x>;``. Modules
are placed in dependency order and each runs once, as with real ES modules.

Only the module syntax the first-party code uses is accepted: named imports, namespace
imports, side-effect imports, and ``export`` before a function, class or declaration (or an
``export { ... }`` list). Anything else (default exports, re-exports, dynamic ``import()``,
imports from outside the ``tbkit`` package or a given root) raises :class:`BundleError`, so a change in the
chart code that this bundler does not understand fails loudly instead of shipping a broken
report.

Example:
    >>> script = bundle(Path(__file__).parent / "static" / "report.js")  # doctest: +SKIP
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["BundleError", "bundle"]

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # tbkit/

_IMPORT = re.compile(
    r"^import\s+(?:(?P<names>\{[^}]*\})|\*\s+as\s+(?P<ns>[A-Za-z_$][\w$]*)|(?P<default>[A-Za-z_$][\w$]*))"
    r"\s+from\s+(?P<q>[\"'])(?P<path>[^\"']+)(?P=q)\s*;?[ \t]*$"
    r"|^import\s+(?P<q2>[\"'])(?P<bare>[^\"']+)(?P=q2)\s*;?[ \t]*$",
    re.MULTILINE,
)
_EXPORT_DECL = re.compile(
    r"^export\s+(?P<kw>(?:async\s+)?function\*?|class|const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_EXPORT_LIST = re.compile(r"^export\s*\{(?P<names>[^}]*)\}\s*;?[ \t]*$", re.MULTILINE)
_ANY_EXPORT = re.compile(r"^export\b", re.MULTILINE)
_DYNAMIC_IMPORT = re.compile(r"(?<![\w$.])import\s*\(")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


class BundleError(ValueError):
    """A module uses syntax (or an import path) the bundler does not handle."""


def _names(spec: str, where: Path) -> list[tuple[str, str]]:
    """``{ a, b as c }`` → ``[("a", "a"), ("b", "c")]`` (exported name, local name)."""
    out = []
    for part in spec.strip().strip("{}").split(","):
        part = " ".join(part.split())
        if not part:
            continue
        pieces = part.split(" as ")
        names = [p.strip() for p in pieces]
        if len(names) > 2 or not all(_NAME.match(n) for n in names):
            raise BundleError(f"{where}: cannot bundle the import/export list {spec.strip()!r}")
        out.append((names[0], names[-1]))
    return out


def _resolve(base: Path, target: str, where: Path, root: Path) -> Path:
    if not target.startswith(("./", "../")):
        raise BundleError(f"{where}: only relative imports can be bundled, not {target!r}")
    path = (base.parent / target).resolve()
    if root not in path.parents or path.suffix != ".js" or not path.is_file():
        raise BundleError(f"{where}: import {target!r} is not a .js file under {root}")
    return path


class _Module:
    def __init__(self, path: Path, index: int, root: Path) -> None:
        self.path = path
        self.root = root
        self.var = f"__tbkit_module_{index}"
        self.source = path.read_text(encoding="utf-8")
        if _DYNAMIC_IMPORT.search(self.source):
            raise BundleError(f"{path}: dynamic import() cannot be bundled")
        self.imports: list[tuple[re.Match[str], Path]] = []
        for match in _IMPORT.finditer(self.source):
            if match.group("default"):
                raise BundleError(f"{path}: default imports cannot be bundled ({match.group(0).strip()!r})")
            target = match.group("path") or match.group("bare")
            self.imports.append((match, _resolve(path, target, path, root)))


def _body(module: _Module, modules: dict[Path, _Module]) -> str:
    source = module.source
    pieces = []
    last = 0
    for match, dep in module.imports:
        pieces.append(source[last : match.start()])
        var = modules[dep].var
        if match.group("names"):
            pairs = _names(match.group("names"), module.path)
            binding = ", ".join(a if a == b else f"{a}: {b}" for a, b in pairs)
            pieces.append(f"const {{ {binding} }} = {var};")
        elif match.group("ns"):
            pieces.append(f"const {match.group('ns')} = {var};")
        last = match.end()
    pieces.append(source[last:])
    source = "".join(pieces)
    exported: list[tuple[str, str]] = [
        (m.group("name"), m.group("name")) for m in _EXPORT_DECL.finditer(source)
    ]
    for match in _EXPORT_LIST.finditer(source):
        exported.extend((local, name) for local, name in _names(match.group("names"), module.path))
    source = _EXPORT_LIST.sub("", source)
    source = _EXPORT_DECL.sub(lambda m: m.group(0)[len("export") :].lstrip(), source)
    if _ANY_EXPORT.search(source):
        line = _ANY_EXPORT.search(source)
        rest = source[line.start() : source.find("\n", line.start())] if line else ""
        raise BundleError(f"{module.path}: cannot bundle {rest.strip()!r}")
    members = ", ".join(name if name == local else f"{name}: {local}" for local, name in exported)
    rel = module.path.relative_to(module.root).as_posix()
    head = f"// ---- {module.root.name}/{rel}\nconst {module.var} = (() => {{\n"
    return f"{head}{source}\nreturn {{ {members} }};\n}})();\n"


def bundle(entry: Path, *, root: Path = PACKAGE_ROOT) -> str:
    """One classic script running the ES module ``entry`` and every module it imports.

    The script runs in strict mode inside its own scope (nothing leaks into ``window``).
    Every module must lie under ``root`` (default: the ``tbkit`` package).

    Raises:
        BundleError: Unsupported module syntax, an import outside the package, or a cycle.
    """
    modules: dict[Path, _Module] = {}
    order: list[Path] = []
    visiting: set[Path] = set()

    def visit(path: Path) -> None:
        if path in visiting:
            raise BundleError(f"{path}: circular imports cannot be bundled")
        if path in modules:
            return
        visiting.add(path)
        module = modules[path] = _Module(path, len(modules), root)
        for _, dep in module.imports:
            visit(dep)
        visiting.discard(path)
        order.append(path)

    root = Path(root).resolve()
    visit(Path(entry).resolve())
    parts = [_body(modules[p], modules) for p in order]
    return '(() => {\n"use strict";\n' + "".join(parts) + "})();\n"
