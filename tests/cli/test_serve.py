"""``tbkit serve``: its help, usage errors and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tbkit.cli import main
from tests.cli._logdirs import run_tbkit


def test_serve_help_lists_tensorboards_flags() -> None:
    result = run_tbkit("serve", "--help")
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
