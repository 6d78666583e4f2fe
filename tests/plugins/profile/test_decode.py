"""The profile kind's file listing for the provider (plugin_files) and for run discovery (run_of)."""

from __future__ import annotations

from pathlib import Path

from tbkit.plugins.profile import decode


def test_run_of_names_the_run_a_trace_directory_makes() -> None:
    assert decode.run_of("train/plugins/profile/2024_01_01_00_00_00", ["host.trace.json.gz"]) == "train"
    assert decode.run_of("plugins/profile/s", ["w.pt.trace.json"]) == "."  # the logdir itself
    assert decode.run_of("train/plugins/profile/s", ["notes.txt"]) is None
    assert decode.run_of("torch_run", ["worker0.1700000000123.pt.trace.json"]) == "torch_run"
    assert decode.run_of("other", ["worker.trace.json"]) is None  # outside plugins/profile: not torch's name


def test_plugin_files_lists_the_traces_of_wanted_runs(tmp_path: Path) -> None:
    for run in ("a", "b"):
        session = tmp_path / run / "plugins" / "profile" / "s1"
        session.mkdir(parents=True)
        (session / "host.trace.json").write_text("{}")
    found = decode.plugin_files(
        str(tmp_path), ["a", "b"], lambda run: str(tmp_path / run), lambda r: r == "a"
    )
    assert found == [("a", "plugins/profile/s1/host.trace.json")]
