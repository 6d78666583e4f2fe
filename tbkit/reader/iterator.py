"""``summary_iterator``: the events of one file, strictly, like TensorFlow's."""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.message import DecodeError

from tbkit.errors import DataError
from tbkit.proto import event_pb2
from tbkit.record import storage
from tbkit.record.framing import iter_records

__all__ = ["summary_iterator"]


def summary_iterator(path: str) -> Iterator[event_pb2.Event]:
    """Yield every ``Event`` of the event file at ``path``, in order.

    Strict: a checksum mismatch raises :class:`~tbkit.errors.CorruptRecordError` with the
    path and the record's byte offset (a record that is not an ``Event``: its parent
    :class:`~tbkit.errors.DataError`). A partial last record ends the iteration quietly
    (the file may still be being written). Local paths and fsspec URLs both work.

    Example:
        >>> for event in summary_iterator("runs/a/events.out.tfevents.1"):  # doctest: +SKIP
        ...     print(event.step, event.summary)
    """
    data = storage.read_bytes(str(path))
    for offset, record in iter_records(data, path=str(path)):
        try:
            event = event_pb2.Event.FromString(record)
        except DecodeError as exc:
            raise DataError(f"undecodable event ({exc})", path=str(path), offset=offset) from exc
        yield event
