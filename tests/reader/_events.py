"""Helpers that build event files by hand (tbkit.proto + the record layer)."""

from __future__ import annotations

from pathlib import Path

from tbkit.proto import event_pb2, summary_pb2
from tbkit.record.framing import encode_record

FILE_NAME = "events.out.tfevents.1700000000.host.1.0"


def header(wall_time: float = 1.0) -> event_pb2.Event:
    return event_pb2.Event(wall_time=wall_time, file_version="brain.Event:2")


def simple(tag: str, step: int, value: float, wall_time: float | None = None) -> event_pb2.Event:
    v = summary_pb2.Summary.Value(tag=tag, simple_value=value)
    return event_pb2.Event(
        wall_time=1000.0 + step if wall_time is None else wall_time,
        step=step,
        summary=summary_pb2.Summary(value=[v]),
    )


def start(step: int, wall_time: float = 0.0) -> event_pb2.Event:
    return event_pb2.Event(
        wall_time=wall_time, step=step, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)
    )


def records(events: list[event_pb2.Event]) -> bytes:
    return b"".join(encode_record(e.SerializeToString()) for e in events)


def write(run_dir: Path, events: list[event_pb2.Event], name: str = FILE_NAME) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / name
    path.write_bytes(records(events))
    return path
