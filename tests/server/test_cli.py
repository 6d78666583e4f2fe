"""The command line: help, demo without serving, usage errors and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tbkit
from tbkit.cli import main


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tbkit.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_serve_help_lists_tensorboards_flags() -> None:
    result = _run("serve", "--help")
    assert result.returncode == 0
    for flag in [
        "--logdir",
        "--logdir_spec",
        "--port",
        "--host",
        "--bind_all",
        "--reload_interval",
        "--samples_per_plugin",
        "--path_prefix",
        "--window_title",
        "--purge_orphaned_data",
    ]:
        assert flag in result.stdout


def test_demo_no_serve_writes_a_logdir(tmp_path: Path) -> None:
    result = _run("demo", "--no-serve", "--logdir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert str(tmp_path) in result.stdout
    runs = tbkit.read(str(tmp_path)).provider.list_plugins()
    assert {"scalars", "histograms", "images", "audio", "text"} <= set(runs)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["serve", "--logdir", "x", "--port", "99999"])
    assert info.value.code == 2


def test_bad_values_exit_1_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--logdir", str(tmp_path), "--samples_per_plugin", "scalars=lots"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tbkit: error:") and err.count("\n") == 1
    assert main(["serve", "--logdir", str(tmp_path), "--host", "127.0.0.1", "--bind_all"]) == 1
