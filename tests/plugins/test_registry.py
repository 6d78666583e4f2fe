"""The plugin spec, the registry's one table and its one entry-point group (and the old ones)."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tbkit.plugins import registry
from tbkit.plugins.spec import Plugin


class _EntryPoint:
    def __init__(self, name: str, obj: Any) -> None:
        self.name = name
        self._obj = obj

    def load(self) -> Any:
        if isinstance(self._obj, BaseException):
            raise self._obj
        return self._obj


@pytest.fixture
def fake_entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[_EntryPoint]]]:
    groups: dict[str, list[_EntryPoint]] = {}

    def entry_points(*, group: str) -> list[_EntryPoint]:
        return list(groups.get(group, []))

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry, "may_declare", lambda groups: True)  # the fakes are not on disk
    registry._reset()
    yield groups
    registry._reset()


def _module(name: str, monkeypatch: pytest.MonkeyPatch, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    return module


# -- the spec


def test_plugin_is_frozen_and_checks_its_fields() -> None:
    p = Plugin("k", "tensor", decoder="x.decode", frames={"k": "x.frames:k_frame"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="data_class"):
        Plugin("k", "matrix")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="module:function"):
        Plugin("k", "tensor", frames={"k": "x.frames.k_frame"})
    with pytest.raises(ValueError, match="name"):
        Plugin("", "tensor")


# -- the built-in table


def test_every_builtin_package_declares_plugins_matching_its_decoder() -> None:
    table = registry.plugins()
    for package in registry.BUILTIN:
        declared = importlib.import_module(package).PLUGINS
        assert declared and all(isinstance(p, Plugin) for p in declared), package
        for p in declared:
            assert table[p.name] is p
            if p.decoder is not None:
                dec = registry.decoder(p.name)
                assert dec.module is importlib.import_module(p.decoder)
                assert p.name == dec.PLUGIN_NAME and p.data_class == dec.DATA_CLASS
                assert p.legacy_field == dec.LEGACY_FIELD
                assert bool(getattr(dec, "FILE_BASED", False)) == p.file_based
            if p.routes is not None:
                assert registry.route_modules()[p.name] is importlib.import_module(p.routes)
            if p.columns:
                assert p.dedicated_frame and hasattr(registry.decoder(p.name), "rows")
                assert tuple(getattr(registry.decoder(p.name), "COLUMNS", p.columns)) == p.columns


def test_builtin_table_in_tab_order() -> None:
    assert list(registry.route_modules()) == [
        "timeseries", "scalars", "histograms", "images", "audio", "text", "hparams", "custom_scalars",
        "pr_curves", "graphs", "projector", "mesh", "profile",
    ]  # fmt: skip
    assert registry.plugin_names() == [
        "audio", "custom_scalars", "graph_keras_model", "graphs", "histograms", "hparams", "images",
        "mesh", "pr_curves", "profile", "projector", "scalars", "tensor", "text",
    ]  # fmt: skip
    assert registry.file_based_plugins() == ("projector", "profile")
    assert set(registry.dedicated_frame_plugins()) == {
        "histograms", "images", "audio", "text", "pr_curves", "custom_scalars", "mesh", "hparams",
        "graphs", "graph_keras_model", "graph_tagged_run_metadata",
    }  # fmt: skip
    assert registry.plugins()["graph_tagged_run_metadata"].decoder is None
    assert [n for n, p in registry.plugins().items() if p.media_extension] == ["custom_scalars", "graphs"]
    assert registry.event_field_plugin("graph_def") == "graphs" and registry.event_field_plugin("x") is None
    assert registry.decoder("timeseries") is None and registry.decoder("nope") is None
    assert registry.data_class_of("images") == "blob_sequence" and registry.data_class_of("nope") is None


def test_legacy_decoders_by_field() -> None:
    assert registry.legacy_decoder("simple_value").PLUGIN_NAME == "scalars"
    assert registry.legacy_decoder("histo").PLUGIN_NAME == "histograms"
    assert registry.legacy_decoder("image").PLUGIN_NAME == "images"
    assert registry.legacy_decoder("audio").PLUGIN_NAME == "audio"
    assert registry.legacy_decoder("tensor") is None


def test_declaring_a_kind_stays_light() -> None:
    """Importing a kind's package imports nothing beyond ``import tbkit`` but the spec."""
    packages = [p for p in registry.BUILTIN if p != "tbkit.plugins.hparams"]
    code = (
        "import sys, importlib, json, tbkit; before = set(sys.modules); "
        f"[importlib.import_module(p) for p in {packages!r}]; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert set(json.loads(out)) <= {*packages, "tbkit.plugins.spec"}
    # hparams installs its session queries on import: still no server and no pandas
    code = "import sys, tbkit.plugins.hparams; print([m for m in ('flask', 'pandas') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


# -- entry points


def test_entry_point_loading_a_plugin(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch
) -> None:
    dec = _module("fake_kind.decode", monkeypatch, PLUGIN_NAME="fake", DATA_CLASS="tensor", LEGACY_FIELD=None)
    routes = _module("fake_kind.routes", monkeypatch, TABS=(), blueprint=object())
    spec = Plugin("fake", "tensor", decoder="fake_kind.decode", routes="fake_kind.routes", file_based=True)
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [_EntryPoint("fake", spec)]
    assert registry.plugins()["fake"] is spec
    assert registry.decoder("fake").module is dec and "fake" in registry.plugin_names()
    assert registry.route_modules()["fake"] is routes
    assert registry.file_based_plugins() == ("projector", "profile", "fake")


def test_entry_point_loading_a_module_with_plugins(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _module("two_kinds", monkeypatch, PLUGINS=(Plugin("one", "scalar"), Plugin("two", "tensor")))
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [_EntryPoint("two_kinds", package)]
    assert {"one", "two"} <= set(registry.plugins()) and "two_kinds" not in registry.plugins()


def test_entry_point_loading_an_old_style_decoder_is_wrapped(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch
) -> None:
    dec = _module("old_kind", monkeypatch, PLUGIN_NAME="old", DATA_CLASS="blob_sequence", LEGACY_FIELD=None)
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [
        _EntryPoint("old", dec),
        _EntryPoint("broken", ImportError("no such module")),
        _EntryPoint("scalars", dec),  # a built-in name: the built-in wins
    ]
    assert registry.plugins()["old"] == Plugin("old", "blob_sequence", decoder="old_kind")
    assert registry.decoder("old").module is dec
    assert "broken" not in registry.plugins() and registry.decoder("broken") is None
    assert registry.decoder("scalars").__name__ == "tbkit.plugins.scalars.decode"


def test_deprecated_routes_group_still_read(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch
) -> None:
    routes = _module("legacy_routes", monkeypatch, TABS=(), blueprint=object())
    fake_entry_points[registry.ROUTES_ENTRY_POINT_GROUP] = [
        _EntryPoint("legacy", routes),
        _EntryPoint("scalars", routes),  # a built-in dashboard is never replaced
    ]
    with pytest.warns(DeprecationWarning, match="tbkit.plugin_routes"):
        modules = registry.route_modules()
    assert modules["legacy"] is routes and list(modules)[-1] == "legacy"
    assert modules["scalars"].__name__ == "tbkit.plugins.scalars.routes"


def test_broken_third_party_routes_are_left_out_with_a_warning(
    fake_entry_points: dict[str, list[_EntryPoint]],
) -> None:
    spec = Plugin("ghost", "tensor", routes="no_such_module_anywhere.routes")
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [_EntryPoint("ghost", spec)]
    with pytest.warns(RuntimeWarning, match="ghost"):
        assert "ghost" not in registry.route_modules()


def test_a_third_party_frame_kind_is_built_by_its_builder_and_cached(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pandas as pd

    import tbkit
    from tbkit.errors import InvalidArgumentError
    from tbkit.reader.logdir import frame_kinds

    calls: list[tuple[Any, Plugin]] = []

    def build(provider: Any, plugin: Plugin) -> pd.DataFrame:
        calls.append((provider, plugin))
        return pd.DataFrame({"run": [r.run_name for r in provider.list_runs()], "plugin": plugin.name})

    _module("framed_kind.frames", monkeypatch, build=build)
    spec = Plugin("framed", "tensor", frames={"framed_rows": "framed_kind.frames:build", "scalars": "x:y"})
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [_EntryPoint("framed", spec)]
    declared = registry.frame_plugins()
    assert {kind: p for kind, p in declared.items() if p is spec} == {"framed_rows": spec, "scalars": spec}
    assert declared["hparams"].name == "hparams"  # built-in kinds declare their frames too
    kinds = frame_kinds()
    assert kinds.index("framed_rows") > kinds.index("traces") and kinds[-3:] == ("runs", "tags", "problems")
    assert kinds.count("scalars") == 1  # a Logdir method wins over a declared frame of its name

    with tbkit.SummaryWriter(str(tmp_path / "train")) as writer:
        writer.add_scalar("loss", 1.0, 0)
    ld = tbkit.read(str(tmp_path))
    frame = ld.frame("framed_rows")
    assert list(frame["run"]) == ["train"] and list(frame["plugin"]) == ["framed"]
    assert calls == [(ld.provider, spec)]
    frame["run"] = "changed"  # the caller's copy: the cache keeps its own
    assert list(ld.frame("framed_rows")["run"]) == ["train"] and len(calls) == 1
    assert ld.frame("scalars").equals(ld.scalars())
    with pytest.raises(InvalidArgumentError, match="no_such_frame"):
        ld.frame("no_such_frame")
    assert registry.frame_builder("no_such_frame") is None


def test_export_includes_third_party_frame_kinds(
    fake_entry_points: dict[str, list[_EntryPoint]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pandas as pd

    import tbkit
    from tbkit.cli.export import export_logdir, parse_kinds

    def build(provider: Any, plugin: Plugin) -> pd.DataFrame:
        return pd.DataFrame({"run": ["train"], "tag": ["t"], "step": [0], "wall_time": [0.0], "n": [7]})

    _module("exported_kind.frames", monkeypatch, build=build)
    spec = Plugin("exported", "tensor", frames={"exported_rows": "exported_kind.frames:build"})
    fake_entry_points[registry.ENTRY_POINT_GROUP] = [_EntryPoint("exported", spec)]
    registry._reset()  # importing the export command read the registry already
    assert "exported_rows" in parse_kinds(None) and parse_kinds("exported_rows") == ["exported_rows"]
    with tbkit.SummaryWriter(str(tmp_path / "logs" / "train")) as writer:
        writer.add_scalar("loss", 1.0, 0)
    manifest = export_logdir(str(tmp_path / "logs"), str(tmp_path / "out"), fmt="json", progress=False)
    assert manifest["kinds"]["exported_rows"]["rows"] == 1
    assert json.loads((tmp_path / "out" / "exported_rows.jsonl").read_text())["n"] == 7


# -- core code names no kind

TBKIT = Path(__file__).resolve().parents[2] / "tbkit"
# The same words used for something that is not a kind: the TENSOR data class's value and
# Summary.Value's ``tensor`` field (the oneof name), and an argument name in error messages.
NOT_A_KIND = {
    ("tbkit/provider/_types.py", "tensor"),  # DataClass.TENSOR = "tensor"
    ("tbkit/server/app.py", "tensor"),  # the data class shown in /data/plugins_listing
    ("tbkit/reader/events.py", "tensor"),  # value.WhichOneof("value") == "tensor"
    ("tbkit/writer/_compat.py", "tensor"),  # the same oneof
    ("tbkit/writer/summary_writer.py", "tensor"),  # to_numpy(..., name="tensor")
    # the report's own keys (its JSON's "scalars", its counts' "images") and the text frame's column
    ("tbkit/cli/report.py", "scalars"),
    ("tbkit/cli/report.py", "images"),
    ("tbkit/cli/report.py", "text"),
    ("tbkit/cli/args.py", "images"),  # info["images"], the report's count
}


def _logdir_methods() -> set[int]:
    """Line numbers of ``Logdir``'s one-line methods (allowed to name their kind)."""
    tree = ast.parse((TBKIT / "reader" / "logdir.py").read_text())
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Logdir":
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    body = item.body[1:] if ast.get_docstring(item) is not None else item.body
                    if len(body) == 1:
                        lines.update(range(item.lineno, (item.end_lineno or item.lineno) + 1))
    return lines


def kind_names_in_core() -> list[str]:
    """``path:line: name`` of each string constant in core code equal to a registered plugin name."""
    names = set(registry.plugins())
    allowed_lines = _logdir_methods()
    found = []
    for path in sorted(TBKIT.rglob("*.py")):
        relative = path.relative_to(TBKIT.parent).as_posix()
        if relative.startswith("tbkit/plugins/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                if (relative, node.value) in NOT_A_KIND:
                    continue
                if relative == "tbkit/reader/logdir.py" and node.lineno in allowed_lines:
                    continue
                found.append(f"{relative}:{node.lineno}: {node.value}")
    return found


def test_core_code_names_no_kind() -> None:
    assert kind_names_in_core() == []
