"""Run discovery: directories of event files, and directories holding only profiler traces."""

from __future__ import annotations

from pathlib import Path

import tbkit
from tbkit.profiler import write_trace
from tbkit.reader.discovery import discover_runs


def test_event_file_runs_and_trace_only_runs(tmp_path: Path) -> None:
    with tbkit.SummaryWriter(str(tmp_path / "events")) as w:
        w.add_scalar("x", 1.0, 0)
    torch_dir = tmp_path / "torch"  # torch.profiler.tensorboard_trace_handler's layout
    torch_dir.mkdir()
    (torch_dir / "host_1.1712345678901.pt.trace.json").write_text('{"traceEvents": []}')
    write_trace(tmp_path / "tb" / "prof", {"traceEvents": []}, session="s", worker="w")
    write_trace(tmp_path, {"traceEvents": []}, session="s", worker="w")  # the logdir itself
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.trace.json").write_text("{}")  # not a layout of the viewers
    found = discover_runs(str(tmp_path))
    assert list(found) == [".", "events", "tb/prof", "torch"]
    assert found["."] == found["tb/prof"] == found["torch"] == []
    assert len(found["events"]) == 1
    assert set(tbkit.read(str(tmp_path)).traces()["run"]) == {".", "tb/prof", "torch"}


def test_a_logdir_that_is_a_file_is_one_run_named_dot(tmp_path: Path) -> None:
    with tbkit.SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("x", 1.0, 0)
    (path,) = tmp_path.iterdir()
    assert discover_runs(str(path)) == {".": [str(path)]}
    assert discover_runs(str(tmp_path / "missing")) == {}


def test_a_local_logdir_is_not_listed_at_open(tmp_path) -> None:
    from tbkit.reader.discovery import listed_at_open

    assert listed_at_open(str(tmp_path)) is None  # checked_logdir says what a local path is
    assert listed_at_open(None) is None and listed_at_open("") is None


def test_an_object_store_logdir_with_runs_is_listed_at_open() -> None:
    import uuid

    from tbkit import SummaryWriter
    from tbkit.reader.discovery import listed_at_open

    logdir = f"memory://listed-at-open-{uuid.uuid4().hex}"
    assert listed_at_open(logdir) is None  # nothing there yet
    with SummaryWriter(f"{logdir}/run") as w:
        w.add_scalar("x", 1.0, 0)
    found = listed_at_open(logdir)
    assert found is not None and list(found.runs) == ["run"]
