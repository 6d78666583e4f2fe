"""The quick look for entry points: never no where importlib.metadata would find some."""

from __future__ import annotations

import importlib.metadata
import sys
import zipfile
from pathlib import Path

import pytest

from tbkit.plugins import registry
from tbkit.plugins.declared import _finds_distributions, may_declare

GROUP = registry.ENTRY_POINT_GROUP


def _dist(root: Path, name: str, entry_points: str | None) -> Path:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


def _found_by_importlib(root: Path) -> list[str]:
    return [
        ep.name
        for dist in importlib.metadata.distributions(path=[str(root)])
        for ep in dist.entry_points
        if ep.group == GROUP
    ]


def test_a_distribution_declaring_the_group_is_seen(tmp_path: Path) -> None:
    _dist(tmp_path, "other", "[console_scripts]\nx = y:z\n")
    _dist(tmp_path, "kinds", f"[{GROUP}]\nmine = kinds_mod\n")
    assert _found_by_importlib(tmp_path) == ["mine"]
    assert may_declare([GROUP], path=[str(tmp_path)])


def test_no_distribution_declaring_it_is_a_no(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # only the standard finders: other tests may leave a finder of distributions of their own
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not _finds_distributions(f)])
    _dist(tmp_path, "other", "[console_scripts]\nx = y:z\n")
    _dist(tmp_path, "bare", None)
    # an .egg-info file (not a directory) holds no entry points
    (tmp_path / "loose.egg-info").write_text("Metadata-Version: 1.0\nName: loose\n")
    assert _found_by_importlib(tmp_path) == []
    assert not may_declare([GROUP], path=[str(tmp_path), str(tmp_path / "missing")])


def test_the_real_environment_agrees_with_importlib() -> None:
    for group in (GROUP, registry.ROUTES_ENTRY_POINT_GROUP, "console_scripts"):
        if not may_declare([group]):
            assert not list(importlib.metadata.entry_points(group=group))
    assert may_declare(["console_scripts"])  # pip, pytest and ruff declare scripts


def test_places_it_does_not_read_are_a_maybe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("kinds-1.0.dist-info/entry_points.txt", f"[{GROUP}]\nmine = kinds_mod\n")
    egg = tmp_path / "kinds-1.0.egg"
    egg.mkdir()
    assert may_declare([GROUP], path=[str(archive)])
    assert may_declare([GROUP], path=[str(egg)])

    class Finder:
        @staticmethod
        def find_distributions(context: object = None) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert may_declare([GROUP], path=[])


def test_the_registry_loads_a_plugin_installed_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dist(tmp_path, "onpath", f"[{GROUP}]\nonpath_kind = onpath_kind\n")
    (tmp_path / "onpath_kind.py").write_text(
        "from tbkit.plugins.spec import Plugin\nPLUGINS = (Plugin('onpath_kind', 'tensor'),)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._reset()
    try:
        assert "onpath_kind" in registry.plugins()
    finally:
        monkeypatch.delitem(sys.modules, "onpath_kind", raising=False)
        monkeypatch.undo()
        registry._reset()
    assert "onpath_kind" not in registry.plugins()
