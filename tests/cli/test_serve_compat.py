"""TensorBoard's ``serve`` flags: ``--inspect`` with ``--logdir``/``--event_file``/``--tag``,
``--reload_multifile``, and ``python -m tbkit``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tbkit.server.serve
from tbkit.cli import build_parser, main
from tbkit.cli.inspect import format_text, inspect_logdir, kinds_digest
from tbkit.proto import event_pb2, histogram_pb2, summary_pb2
from tbkit.record.framing import encode_record


def _value(tag: str, **what: Any) -> summary_pb2.Summary.Value:
    return summary_pb2.Summary.Value(tag=tag, **what)


def _write(path: Path, values: list[tuple[int, summary_pb2.Summary.Value]]) -> None:
    events = [event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")]
    events += [
        event_pb2.Event(wall_time=2.0 + step, step=step, summary=summary_pb2.Summary(value=[v]))
        for step, v in values
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(encode_record(e.SerializeToString()) for e in events))


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    """Run ``train`` with two event files (scalars + a histogram, then ``lr``), run ``eval`` with one."""
    histogram = histogram_pb2.HistogramProto(min=0.1, max=0.3, num=3, bucket_limit=[0.2, 0.3], bucket=[1, 2])
    first = [(step, _value(tag, simple_value=step / 5)) for step in range(5) for tag in ("loss", "acc")]
    _write(
        tmp_path / "train" / "events.out.tfevents.1700000000.h.1.a",
        [*first, (4, _value("weights", histo=histogram))],
    )
    _write(tmp_path / "train" / "events.out.tfevents.1700000001.h.1.b", [(7, _value("lr", simple_value=0.1))])
    _write(
        tmp_path / "eval" / "events.out.tfevents.1700000000.h.2.a", [(10, _value("loss", simple_value=0.5))]
    )
    return tmp_path


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replace the server: a test that should not serve fails instead of blocking; calls are kept."""
    calls: list[dict[str, Any]] = []

    def fake_serve(provider: Any, **kwargs: Any) -> int:
        calls.append({"provider": provider, **kwargs})
        return 0

    monkeypatch.setattr(tbkit.server.serve, "serve", fake_serve)
    return calls


def _first_file(run_dir: Path) -> Path:
    return sorted(run_dir.glob("events.out.tfevents.*"))[0]


def test_inspect_event_file_digests_that_file_only_and_does_not_serve(
    logdir: Path, no_server: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    path = _first_file(logdir / "train")
    assert main(["serve", "--inspect", "--event_file", str(path)]) == 0
    out = capsys.readouterr().out
    assert no_server == []
    assert out == format_text(inspect_logdir(str(path)), by_kind=True)
    assert out.startswith(f"Event file {path}: 1 run(s), 1 event file(s)")
    assert " lr " not in out  # the other file of the run is not read
    kinds = out[out.index("  by kind:") :].splitlines()
    assert kinds[1].split() == ["kind", "tags", "count", "out", "of", "order", "min", "max", "tag", "names"]
    assert kinds[2].split() == ["histograms", "1", "1", "0", "4", "4", "weights"]
    assert kinds[3].split() == ["scalars", "2", "10", "0", "0", "4", "acc,", "loss"]


def test_inspect_event_file_with_tag(logdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _first_file(logdir / "train")
    assert main(["serve", "--inspect", "--event_file", str(path), "--tag", "loss"]) == 0
    out = capsys.readouterr().out
    assert f"Event file {path} (tag 'loss')" in out
    assert "  loss  " in out and "acc" not in out and "weights" not in out


def test_inspect_logdir_lists_every_run_and_file(logdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--inspect", "--logdir", str(logdir)]) == 0
    out = capsys.readouterr().out
    assert out == format_text(inspect_logdir(str(logdir)), by_kind=True)
    assert "Run eval  (1 event file(s)" in out and "Run train  (2 event file(s)" in out
    assert "  lr  " in out and out.count("  by kind:") == 2


def test_kinds_digest_sums_the_tags_of_each_kind(logdir: Path) -> None:
    (eval_run, train) = inspect_logdir(str(logdir))["runs"]
    assert [
        (k["kind"], k["tags"], k["count"], k["min_step"], k["max_step"]) for k in kinds_digest(train)
    ] == [
        ("histograms", ["weights"], 1, 4, 4),
        ("scalars", ["acc", "loss", "lr"], 11, 0, 7),
    ]
    assert [k["kind"] for k in kinds_digest(eval_run)] == ["scalars"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--inspect", "--logdir_spec", "a:x"], "--logdir_spec is not supported with --inspect"),
        (["--event_file", "x"], "--event_file is only used with --inspect"),
        (["--logdir", "x", "--tag", "loss"], "--tag is only used with --inspect"),
        (["--inspect", "--logdir", "x", "--event_file", "y"], "not allowed with argument --logdir"),
        (["--inspect"], "one of the arguments --logdir --logdir_spec --event_file is required"),
        (["--logdir", "x", "--reload_multifile", "maybe"], "expected true or false, got 'maybe'"),
    ],
)
def test_misused_flags_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], no_server: list[dict[str, Any]]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
    assert no_server == []


def test_inspect_of_a_bad_path_fails_in_one_line_naming_it(
    logdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not an event file")
    cases = [
        (
            ["--event_file", str(tmp_path / "missing")],
            f"no such log directory or event file: {tmp_path / 'missing'}",
        ),
        (["--event_file", str(logdir / "train")], f"--event_file {logdir / 'train'} is a directory"),
        (["--event_file", str(text)], "not an event file: its name has no 'tfevents'"),
        (["--logdir", str(tmp_path / "missing")], str(tmp_path / "missing")),
    ]
    for argv, message in cases:
        assert main(["serve", "--inspect", *argv]) == 1
        err = capsys.readouterr().err
        assert err.startswith("tbkit: error: ") and err.count("\n") == 1
        assert message in err


@pytest.mark.parametrize(
    ("flags", "value"),
    [
        ([], None),
        (["--reload_multifile"], True),
        (["--reload_multifile", "false"], False),
        (["--reload_multifile=true"], True),
    ],
)
def test_reload_multifile_is_accepted_bare_or_with_a_bool(
    logdir: Path, flags: list[str], value: bool | None, no_server: list[dict[str, Any]]
) -> None:
    argv = ["serve", "--logdir", str(logdir), *flags, "--reload_multifile_inactive_secs", "-1"]
    assert build_parser().parse_args(argv).reload_multifile is value
    assert main(argv) == 0
    served = [call["provider"].data_locations() for call in no_server]
    assert served == [[("", str(logdir))]]  # served as without the flag


def test_serve_help_says_every_file_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--reload_multifile [BOOL]" in help_text
    assert "tbkit always reads every event file of a run" in help_text
    assert "--inspect" in help_text and "--event_file PATH" in help_text and "--tag TAG" in help_text


def test_python_dash_m_tbkit_runs_the_cli(logdir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tbkit", "inspect", "--logdir", str(logdir), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(inspect_logdir(str(logdir))))
    usage = subprocess.run([sys.executable, "-m", "tbkit"], capture_output=True, text=True, timeout=300)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: tbkit ")
