"""Helpers for the writer tests: read event files back with the record layer and the protos only."""

from __future__ import annotations

from tbkit._tensors import make_ndarray
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import storage
from tbkit.record.framing import iter_records


def parse_events(path: str) -> list[event_pb2.Event]:
    """Every event of the file at ``path``, strictly (a corrupt record fails the test)."""
    data = storage.read_bytes(path)
    return [event_pb2.Event.FromString(record) for _, record in iter_records(data, path=path)]


def event_files(logdir: str) -> list[str]:
    """The event files directly in ``logdir``, in name order."""
    return [
        storage.join(logdir, name)
        for name, is_dir in storage.listdir(logdir)
        if not is_dir and name.startswith("events.out.tfevents.")
    ]


def run_events(logdir: str) -> list[event_pb2.Event]:
    """The events of the one event file in ``logdir``, header included."""
    files = event_files(logdir)
    assert len(files) == 1, files
    return parse_events(files[0])


def scalar_value(value: summary_pb2.Summary.Value) -> float:
    """The number of a scalar ``Summary.Value``: its ``simple_value``, or its one-element tensor."""
    if value.WhichOneof("value") == "simple_value":
        return float(value.simple_value)
    assert value.WhichOneof("value") == "tensor", value
    return float(make_ndarray(value.tensor).reshape(-1)[0])
