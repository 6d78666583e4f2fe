"""Hostile events for the reader's tests: well framed, with content meant to break a decoder.

Each builder returns one ``Event``; :func:`logdir_with` writes a run of good scalars (steps 0-2
before the hostile records, 10-12 after them) so a test can check both that the bad record
became a problem and that every good point was still read.
"""

from __future__ import annotations

from pathlib import Path

from tbkit.proto import event_pb2, summary_pb2, tensor_pb2
from tbkit.record.framing import encode_record

FILE_NAME = "events.out.tfevents.1700000000.host.1.0"
BEFORE = (0, 1, 2)
AFTER = (10, 11, 12)


def good(step: int) -> event_pb2.Event:
    """A scalar ``good`` at ``step`` (value ``step``)."""
    value = summary_pb2.Summary.Value(tag="good", simple_value=float(step))
    return event_pb2.Event(wall_time=1000.0 + step, step=step, summary=summary_pb2.Summary(value=[value]))


def tensor_event(
    tag: str, plugin: str, tensor: tensor_pb2.TensorProto, step: int = 5, content: bytes = b""
) -> event_pb2.Event:
    """An event holding one tensor value of ``plugin``."""
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    value.metadata.plugin_data.plugin_name = plugin
    value.metadata.plugin_data.content = content
    return event_pb2.Event(wall_time=1005.0, step=step, summary=summary_pb2.Summary(value=[value]))


def keras(config: str | bytes, tag: str = "keras") -> event_pb2.Event:
    """A Keras conceptual graph summary (plugin ``graph_keras_model``) holding ``config``."""
    blob = config.encode() if isinstance(config, str) else config
    return tensor_event(tag, "graph_keras_model", tensor_pb2.TensorProto(dtype=7, string_val=[blob]))


def deep_json(depth: int = 100_000) -> str:
    """JSON nested ``depth`` levels deep (deeper than Python's recursion limit)."""
    return "[" * depth + "]" * depth


def declared(
    dims: list[int],
    plugin: str,
    *,
    float_val: list[float] | None = None,
    content: bytes = b"",
    tag: str = "t",
) -> event_pb2.Event:
    """A float tensor declaring ``dims`` while holding ``float_val`` or ``content`` bytes."""
    tensor = tensor_pb2.TensorProto(dtype=1, tensor_shape={"dim": [{"size": d} for d in dims]})
    tensor.float_val.extend(float_val or [])
    tensor.tensor_content = content
    return tensor_event(tag, plugin, tensor)


def logdir_with(root: Path, hostile: list[event_pb2.Event], run: str = "run") -> Path:
    """``root/run`` holding good scalars, then ``hostile``, then more good scalars; returns ``root``."""
    run_dir = root / run
    run_dir.mkdir(parents=True, exist_ok=True)
    header = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    events = [header, *(good(s) for s in BEFORE), *hostile, *(good(s) for s in AFTER)]
    (run_dir / FILE_NAME).write_bytes(b"".join(encode_record(e.SerializeToString()) for e in events))
    return root
