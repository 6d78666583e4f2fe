"""Install hints: every ``pip install`` that tbkit tells users to run names something that exists."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tbkit.errors import MissingDependencyError

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")

ROOT = Path(__file__).resolve().parents[1]
# ``tbkit[X]`` anywhere, and ``".[X]"`` / ``-e .[X]`` (an install of the checkout);
# a ``{placeholder}`` is not a name.
EXTRA_TEXT = re.compile(r"(?:\btbkit|(?<=[\"'\s])\.)\[([^\]\s{}]*)\]")
PLAIN_PACKAGE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


@dataclass(frozen=True)
class Hint:
    """One ``MissingDependencyError(...)`` call found in the source."""

    where: str
    package: object
    extra: object


def _normalize(name: str) -> str:
    """A distribution name in PEP 503 normal form."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _extras() -> dict[str, set[str]]:
    """``[project.optional-dependencies]``: extra name → normalized names of the packages it installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {
        extra: {_normalize(PLAIN_PACKAGE.match(req.strip()).group(0)) for req in reqs}
        for extra, reqs in project.get("optional-dependencies", {}).items()
    }


def _sources() -> list[Path]:
    """The package's Python files."""
    files = sorted((ROOT / "tbkit").rglob("*.py"))
    assert files, f"no sources under {ROOT / 'tbkit'}"
    return files


def _texts() -> list[Path]:
    """Every file whose text may tell users what to install."""
    docs = sorted((ROOT / "docs").rglob("*.md"))
    return [*_sources(), ROOT / "README.md", *docs, ROOT / ".ci" / "run"]


def _literal(node: ast.expr | None) -> object:
    """A string constant's value, or the node's source text (so a test failure shows it)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None if node is None else ast.unparse(node)


def _hints(path: Path) -> list[Hint]:
    """The ``MissingDependencyError(...)`` calls in one source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name != "MissingDependencyError":
            continue
        kwargs = {kw.arg: kw.value for kw in node.keywords}
        package = node.args[0] if node.args else kwargs.get("package")
        where = f"{path.relative_to(ROOT)}:{node.lineno}"
        found.append(Hint(where, _literal(package), _literal(kwargs.get("extra"))))
    return found


def _all_hints() -> list[Hint]:
    return [hint for path in _sources() for hint in _hints(path)]


def _text_extras(path: Path) -> list[tuple[str, str]]:
    """``(file:line, extra)`` for every ``tbkit[X]`` / ``.[X]`` in a file's text (``[a,b]`` gives both)."""
    found = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for match in EXTRA_TEXT.finditer(line):
            for extra in match.group(1).split(","):
                found.append((f"{path.relative_to(ROOT)}:{lineno}", extra.strip()))
    return found


def test_the_scan_finds_the_hints() -> None:
    """The scanners see the known calls and texts, so an empty result below is not a blind scanner."""
    hints = _all_hints()
    assert any(h.package == "matplotlib" and h.extra == "figures" for h in hints)
    assert any(h.package == "torch" and h.extra is None for h in hints)
    assert "test" in {extra for _, extra in _text_extras(ROOT / "README.md")}


def test_every_extra_in_a_hint_exists_and_installs_the_package() -> None:
    extras = _extras()
    wrong = [
        hint
        for hint in _all_hints()
        if hint.extra is not None
        and (
            hint.extra not in extras
            or not isinstance(hint.package, str)
            or _normalize(hint.package) not in extras[hint.extra]
        )
    ]
    assert not wrong, f"hints naming an extra that is not in pyproject.toml or lacks the package: {wrong}"


def test_a_hint_without_extra_names_a_plain_package() -> None:
    wrong = [
        hint
        for hint in _all_hints()
        if hint.extra is None
        and not (isinstance(hint.package, str) and PLAIN_PACKAGE.fullmatch(hint.package))
    ]
    assert not wrong, f"hints whose `pip install <package>` is not one plain package name: {wrong}"


def test_every_extra_named_in_the_text_exists() -> None:
    extras = _extras()
    wrong = [
        (where, extra) for path in _texts() for where, extra in _text_extras(path) if extra not in extras
    ]
    assert not wrong, f"`tbkit[X]` / `.[X]` naming extras that are not in pyproject.toml: {wrong}"


def test_the_message_carries_the_install_command() -> None:
    with_extra = MissingDependencyError("matplotlib", extra="figures", feature="add_figure")
    plain = MissingDependencyError("torch", feature="tbkit.torch")
    assert 'pip install "tbkit[figures]"' in str(with_extra)
    assert str(plain).endswith("pip install torch")
    assert with_extra.package == "matplotlib"
    assert isinstance(plain, ImportError)
