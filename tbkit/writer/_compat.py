"""What libraries reach for on torch's and tensorboardX's writers, beyond the ``add_*`` methods.

``writer.file_writer``, ``writer.all_writers`` and ``writer._get_file_writer()`` are torch's
``FileWriter`` objects; Lightning, for one, writes its hparams summaries through
``_get_file_writer().add_summary(...)``. Here they are :class:`FileWriter` views of tbkit's
own event files. ``export_scalars_to_json`` is tensorboardX's: it reads the scalars back
from the files this writer wrote, so logging keeps no copy of them in memory.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from google.protobuf.message import DecodeError, Message

from tbkit._tensors import make_ndarray
from tbkit.plugins.scalars.decode import PLUGIN_NAME as SCALARS_PLUGIN
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import framing, storage
from tbkit.writer._values import check_step, check_walltime
from tbkit.writer.event_file import EventFileWriter


def as_message(message: Any, kind: type[Message], name: str) -> Any:
    """A private copy of ``message`` as tbkit's ``kind``: from tbkit's, TensorFlow's, TensorBoard's or bytes.

    Raises:
        TypeError: ``message`` is none of these.
        ValueError: Its bytes do not parse as ``kind``.
    """
    if isinstance(message, kind):
        copy = kind()
        copy.CopyFrom(message)  # the writer thread may strip metadata: never touch the caller's
        return copy
    if isinstance(message, bytes | bytearray):
        data = bytes(message)
    elif hasattr(message, "SerializeToString"):
        data = message.SerializeToString()
    else:
        raise TypeError(f"{name} must be a {kind.__name__} proto or its bytes, got {type(message).__name__}")
    try:
        return kind.FromString(data)
    except DecodeError as exc:
        raise ValueError(f"{name} does not parse as a {kind.__name__}: {exc}") from None


class FileWriter:
    """One event file of a ``SummaryWriter``, with the methods of torch's ``FileWriter``.

    Example:
        >>> writer._get_file_writer().add_summary(summary, global_step=3)  # doctest: +SKIP
    """

    def __init__(self, events: EventFileWriter, log_dir: str) -> None:
        self.event_writer = events
        self._log_dir = log_dir

    def get_logdir(self) -> str:
        """The directory this file is in."""
        return self._log_dir

    def add_event(self, event: Any, step: int | None = None, walltime: float | None = None) -> None:
        """Write an ``Event`` (any wire-compatible message, or its bytes), as torch does.

        As in torch, the event's wall time becomes ``walltime`` (now when None), and its
        step ``step`` when given.
        """
        copy = as_message(event, event_pb2.Event, "event")
        copy.wall_time = check_walltime(walltime)
        if step is not None:
            copy.step = check_step(step)
        self.event_writer.add_event(copy)

    def add_summary(
        self, summary: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Write a ``Summary`` (any wire-compatible message, or its bytes) at ``global_step``."""
        copy = as_message(summary, summary_pb2.Summary, "summary")
        self.event_writer.add_summary(copy, check_step(global_step), check_walltime(walltime))

    def add_graph(self, graph_profile: Sequence[Any], walltime: float | None = None) -> None:
        """Write ``(GraphDef, RunMetadata)`` as the run graph and its ``step1`` run metadata, as torch."""
        graph, run_metadata = graph_profile
        self.add_event(event_pb2.Event(graph_def=_serialized(graph, "graph")), None, walltime)
        tagged = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=_serialized(run_metadata, "metadata"))
        self.add_event(event_pb2.Event(tagged_run_metadata=tagged), None, walltime)

    def add_onnx_graph(self, graph: Any, walltime: float | None = None) -> None:
        """Write a serialized-or-message ``GraphDef`` as the run graph."""
        self.add_event(event_pb2.Event(graph_def=_serialized(graph, "graph")), None, walltime)

    def flush(self) -> None:
        """Write everything queued to the file."""
        self.event_writer.flush()

    def close(self) -> None:
        """Write everything queued and close the file (the ``SummaryWriter`` is then closed too)."""
        self.event_writer.close()

    def reopen(self) -> None:
        """Accepted for torch compatibility; a closed tbkit writer stays closed."""


def _serialized(message: Any, name: str) -> bytes:
    if isinstance(message, bytes | bytearray):
        return bytes(message)
    if hasattr(message, "SerializeToString"):
        return message.SerializeToString()
    raise TypeError(f"{name} must be a proto message or its bytes, got {type(message).__name__}")


def _scalar_points(path: str, start: int) -> tuple[list[tuple[str, list[float]]], int]:
    """``(tag, [wall_time, step, value])`` of every scalar in ``path`` from byte ``start``; the end."""
    data = storage.read_bytes(path, start)
    points: list[tuple[str, list[float]]] = []
    end = start
    scalar_tags: set[str] = set()
    for offset, record in framing.iter_records(data, path=path):
        end = start + offset + len(record) + framing.OVERHEAD
        event = event_pb2.Event.FromString(record)
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name == SCALARS_PLUGIN:
                scalar_tags.add(value.tag)
            kind = value.WhichOneof("value")
            if kind == "simple_value":
                number = float(value.simple_value)
            elif kind == "tensor" and value.tag in scalar_tags:
                number = float(make_ndarray(value.tensor).reshape(-1)[0])
            else:
                continue
            points.append((value.tag, [event.wall_time, event.step, number]))
    return points, end


class CompatMixin:
    """``file_writer``, ``all_writers``, ``_get_file_writer()`` and ``export_scalars_to_json``."""

    log_dir: str
    _writer: EventFileWriter
    _sub_writers: dict[str, EventFileWriter]
    _file_writers: dict[str, FileWriter]
    _exported: dict[str, int]
    _sub_tags: dict[str, tuple[str, str]]

    def flush(self) -> None:
        raise NotImplementedError  # provided by SummaryWriter

    def _file_writer_of(self, log_dir: str, events: EventFileWriter) -> FileWriter:
        view = self._file_writers.get(log_dir)
        if view is None or view.event_writer is not events:
            view = self._file_writers[log_dir] = FileWriter(events, log_dir)
        return view

    @property
    def file_writer(self) -> FileWriter:
        """The ``FileWriter`` of this writer's own event file (torch's attribute)."""
        return self._file_writer_of(self.log_dir, self._writer)

    @property
    def all_writers(self) -> dict[str, FileWriter]:
        """Directory to ``FileWriter`` of every event file this writer writes (``add_scalars`` runs too)."""
        writers = {self.log_dir: self.file_writer}
        for log_dir, events in self._sub_writers.items():
            writers[log_dir] = self._file_writer_of(log_dir, events)
        return writers

    def _get_file_writer(self) -> FileWriter:
        """torch's accessor of ``file_writer``; libraries call it to write summaries directly."""
        return self.file_writer

    def export_scalars_to_json(self, path: str) -> None:
        """Write every scalar logged since the last export to ``path`` as JSON (tensorboardX's).

        The format is tensorboardX's: ``{"<log_dir>/<tag>": [[wall_time, step, value], ...]}``,
        and for ``add_scalars`` values ``"<log_dir>/<main_tag>/<key>"``. The values are read
        back from the event files (after a flush), so they are the float32 values written.
        """
        self.flush()
        out: dict[str, list[list[float]]] = {}
        files = [(self.log_dir, self._writer), *self._sub_writers.items()]
        for log_dir, events in files:
            points, end = _scalar_points(events.path, self._exported.get(events.path, 0))
            self._exported[events.path] = end
            for tag, point in points:
                main_tag, key = self._sub_tags.get(log_dir, ("", ""))
                name = storage.join(self.log_dir, main_tag, key) if key else storage.join(log_dir, tag)
                out.setdefault(name, []).append(point)
        with open(path, "w", encoding="utf-8") as file:
            json.dump(out, file)
