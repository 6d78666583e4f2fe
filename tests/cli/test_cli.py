"""``tbkit``'s error reporting: known failures in one line, bugs with their type and a ``--debug`` hint."""

from __future__ import annotations

from pathlib import Path

import pytest

import tbkit.cli.inspect
from tbkit.cli import main


def _fail_with(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    def broken(*args: object, **kwargs: object) -> dict[str, object]:
        raise exc

    monkeypatch.setattr(tbkit.cli.inspect, "inspect_logdir", broken)


def test_a_bug_prints_its_type_message_and_a_debug_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fail_with(monkeypatch, KeyError("orphaned"))
    assert main(["inspect", "--logdir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    first, hint = err.splitlines()
    assert first == "tbkit: error: KeyError: 'orphaned'"
    assert "bug" in hint and "rerun with --debug" in hint
    assert "Traceback" not in err


def test_a_bug_without_a_message_still_names_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fail_with(monkeypatch, AssertionError())
    assert main(["inspect", "--logdir", str(tmp_path)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == "tbkit: error: AssertionError"


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_shows_the_traceback_before_or_after_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    _fail_with(monkeypatch, KeyError("orphaned"))
    command = ["inspect", "--logdir", str(tmp_path)]
    assert main(["--debug", *command] if where == "before" else [*command, "--debug"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "in broken" in err  # the frame that raised
    assert err.splitlines()[-1] == "tbkit: error: KeyError: 'orphaned'"
    assert "rerun with --debug" not in err


@pytest.mark.parametrize(
    "exc", [PermissionError("permission denied: /logs"), tbkit.errors.DataError("bad", path="/f")]
)
def test_known_failures_keep_their_one_line_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], exc: Exception
) -> None:
    _fail_with(monkeypatch, exc)
    assert main(["inspect", "--logdir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"tbkit: error: {exc}\n"
    assert main(["--debug", "inspect", "--logdir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith(f"tbkit: error: {exc}\n")


def test_a_missing_logdir_is_one_line_and_conflicting_flags_are_not_a_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--logdir", str(tmp_path / "missing")]) == 1
    assert capsys.readouterr().err == f"tbkit: error: no such log directory: {tmp_path / 'missing'}\n"
    assert main(["serve", "--logdir", str(tmp_path), "--host", "127.0.0.1", "--bind_all"]) == 1
    assert capsys.readouterr().err == "tbkit: error: give --host or --bind_all, not both\n"
