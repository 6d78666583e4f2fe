"""``tbkit inspect``: the digest matches the data, problems carry file and offset, exit codes."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.proto import event_pb2, graph_pb2, summary_pb2
from tbkit.record.framing import encode_record
from tests.cli._logdirs import run_tbkit

pytestmark = pytest.mark.filterwarnings("ignore:tbkit. corrupt record:RuntimeWarning")


def _digest(logdir: Path, *args: str) -> dict:
    result = run_tbkit("inspect", "--logdir", str(logdir), "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_help() -> None:
    result = run_tbkit("inspect", "--help")
    assert result.returncode == 0
    for flag in ("--logdir", "--tag", "--runs", "--json", "--fail-on-problems", "--no-progress"):
        assert flag in result.stdout


def test_digest_matches_what_the_reader_keeps(rich_logdir: Path) -> None:
    digest = _digest(rich_logdir)
    tags = tbkit.read(str(rich_logdir), purge_orphaned_data=False).tags()
    expected = {
        (r.run, r.tag): (r.plugin, r.count, r.first_step, r.last_step) for r in tags.itertuples(index=False)
    }
    found = {
        (run["run"], t["tag"]): (t["plugin"], t["count"], t["min_step"], t["max_step"])
        for run in digest["runs"]
        for t in run["tags"]
    }
    assert found == expected
    assert digest["problems"] == []
    text = run_tbkit("inspect", "--logdir", str(rich_logdir))
    assert text.returncode == 0
    assert "No problems found." in text.stdout
    for run, tag in expected:
        assert f"Run {run}" in text.stdout and tag in text.stdout


def test_out_of_order_steps_in_written_order(corpus_cases: dict) -> None:
    case = corpus_cases["out_of_order"]
    digest = _digest(case.logdir)
    (tag,) = digest["runs"][0]["tags"]
    steps = [row[2] for row in case.rows]
    pairs = [[a, b] for a, b in itertools.pairwise(steps) if b < a]
    assert pairs and tag["out_of_order"] == pairs
    assert tag["out_of_order_count"] == len(pairs)
    assert tag["count"] == len(steps) and tag["distinct_steps"] == len(set(steps))
    assert (tag["first_step"], tag["last_step"]) == (steps[0], steps[-1])
    text = run_tbkit("inspect", "--logdir", str(case.logdir)).stdout
    assert ", ".join(f"{a}→{b}" for a, b in pairs) in text


@pytest.mark.parametrize(
    "name", ["bad_data_crc", "flipped_payload", "bad_length_crc", "damage_in_second_file"]
)
def test_corrupt_records_are_listed_with_file_and_offset(corpus_cases: dict, name: str) -> None:
    case = corpus_cases[name]
    digest = _digest(case.logdir)
    reported = {(p["path"], p["offset"]) for p in digest["problems"]}
    assert case.problems <= reported
    assert reported <= case.problems | case.may_problems
    counts = {(run["run"], t["tag"]): t["count"] for run in digest["runs"] for t in run["tags"]}
    rows = tbkit.read(str(case.logdir), purge_orphaned_data=False).tags()
    assert counts == {(r.run, r.tag): r.count for r in rows.itertuples(index=False)}
    text = run_tbkit("inspect", "--logdir", str(case.logdir))
    assert text.returncode == 0 and f"Problems ({len(reported)})" in text.stdout
    for path, offset in case.problems:
        line = next(
            line for line in text.stdout.splitlines() if Path(path).name in line and f" {offset} " in line
        )
        assert "corrupt record" in line
    strict = run_tbkit("inspect", "--logdir", str(case.logdir), "--fail-on-problems")
    assert strict.returncode == 1


def test_restart_reports_the_points_a_reader_drops(peer_fixtures: Path) -> None:
    for peer in ("torch", "tbx"):
        logdir = peer_fixtures / peer
        digest = _digest(logdir, "--runs", "^resumed$")
        (run,) = digest["runs"]
        starts = [e for e in run["session_log"] if e["status"] == "START"]
        assert starts
        raw = tbkit.read(str(logdir), runs=["resumed"], purge_orphaned_data=False).scalars()
        purged = tbkit.read(str(logdir), runs=["resumed"]).scalars()
        assert sum(e["orphaned"] for e in starts) == len(raw) - len(purged) > 0


def test_tag_filter_and_peer_logdirs(peer_fixtures: Path) -> None:
    digest = _digest(peer_fixtures / "torch", "--tag", "loss/old_style")
    tags = {t["tag"] for run in digest["runs"] for t in run["tags"]}
    assert tags == {"loss/old_style"}
    for peer in ("tf1", "tf2", "keras", "tf_rich"):
        digest = _digest(peer_fixtures / peer)
        frame = tbkit.read(str(peer_fixtures / peer), purge_orphaned_data=False).tags()
        assert sum(t["count"] for run in digest["runs"] for t in run["tags"]) == int(frame["count"].sum())


def test_steps_digest_on_large_steps(corpus_cases: dict) -> None:
    (tag,) = _digest(corpus_cases["extreme_steps"].logdir)["runs"][0]["tags"]
    steps = np.array([row[2] for row in corpus_cases["extreme_steps"].rows])
    assert (tag["min_step"], tag["max_step"]) == (int(steps.min()), int(steps.max()))


def test_errors_exit_1_with_one_line_and_usage_exit_2(tmp_path: Path) -> None:
    missing = run_tbkit("inspect", "--logdir", str(tmp_path / "nope"))
    assert missing.returncode == 1
    assert missing.stderr.startswith("tbkit: error:") and missing.stderr.count("\n") == 1
    empty = run_tbkit("inspect", "--logdir", str(tmp_path))
    assert empty.returncode == 1 and "no event files" in empty.stderr
    usage = run_tbkit("inspect")
    assert usage.returncode == 2 and "--logdir" in usage.stderr
    bad_regex = run_tbkit("inspect", "--logdir", str(tmp_path), "--runs", "(")
    assert bad_regex.returncode == 1 and bad_regex.stderr.count("\n") == 1


def _every_event_kind(run_dir: Path) -> Path:
    """One event file holding each ``Event.what`` of event.proto, and each ``SessionLog`` status."""
    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="x", op="Placeholder")])
    meta_graph = b"\x12" + bytes([graph.ByteSize()]) + graph.SerializeToString()  # MetaGraphDef.graph_def
    log = event_pb2.SessionLog
    loss = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)])
    events = [
        event_pb2.Event(wall_time=1.0, file_version="brain.Event:2"),
        event_pb2.Event(wall_time=2.0, step=0, graph_def=graph.SerializeToString()),
        event_pb2.Event(wall_time=3.0, step=1, session_log=log(status=log.START, msg="started")),
        event_pb2.Event(wall_time=4.0, step=1, summary=loss),
        event_pb2.Event(
            wall_time=5.0,
            step=1,
            log_message=event_pb2.LogMessage(level=event_pb2.LogMessage.WARN, message="a warning"),
        ),
        event_pb2.Event(
            wall_time=6.0, step=2, session_log=log(status=log.CHECKPOINT, checkpoint_path="/ckpt")
        ),
        event_pb2.Event(
            wall_time=7.0,
            step=2,
            tagged_run_metadata=event_pb2.TaggedRunMetadata(tag="step2", run_metadata=b""),
        ),
        event_pb2.Event(wall_time=8.0, step=3, meta_graph_def=meta_graph),
        event_pb2.Event(wall_time=9.0, step=3, summary=loss),
        event_pb2.Event(wall_time=10.0, step=3, session_log=log(status=log.STOP)),
    ]
    every = {f.name for f in event_pb2.Event.DESCRIPTOR.oneofs_by_name["what"].fields}
    assert {e.WhichOneof("what") for e in events} == every
    assert {e.session_log.status for e in events if e.HasField("session_log")} == {
        log.START,
        log.STOP,
        log.CHECKPOINT,
    }
    run_dir.mkdir(parents=True)
    path = run_dir / "events.out.tfevents.1700000000.host.1.0"
    path.write_bytes(b"".join(encode_record(e.SerializeToString()) for e in events))
    return path


def test_a_file_of_every_event_kind_is_inspected(tmp_path: Path) -> None:
    # Regression: SessionLog STOP/CHECKPOINT beside LogMessage, TaggedRunMetadata and a graph
    # crashed the text report with "tbkit: error: 'orphaned'" (a KeyError).
    _every_event_kind(tmp_path / "run")
    (run,) = _digest(tmp_path)["runs"]
    tags = {t["tag"]: (t["plugin"], t["count"], t["first_step"], t["last_step"]) for t in run["tags"]}
    assert tags == {
        "__run_graph__": ("graphs", 1, 0, 0),
        "loss": ("scalars", 2, 1, 3),
        "step2": ("graph_tagged_run_metadata", 1, 2, 2),
    }
    logs = [(e["status"], e["step"], e.get("orphaned")) for e in run["session_log"]]
    assert logs == [("START", 1, 0), ("CHECKPOINT", 2, None), ("STOP", 3, None)]
    text = run_tbkit("inspect", "--logdir", str(tmp_path))
    assert text.returncode == 0, text.stderr
    assert text.stderr == ""
    for line in (
        "session log START at step 1",
        "session log CHECKPOINT at step 2",
        "session log STOP at step 3",
    ):
        assert f"  {line}\n" in text.stdout
    assert "No problems found." in text.stdout
