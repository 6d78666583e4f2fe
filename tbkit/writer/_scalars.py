"""Batch encoding of scalar events with NumPy: the writer thread's hot path.

A scalar event is ``Event{1: wall_time, 2: step, 5: Summary}``, both head fields always
present (:func:`tbkit.record.wire.fixed_event_head`), where the summary bytes are a
fixed per-tag template around the value's 4 bytes (a TF1 ``simple_value``, as torch writes
``add_scalar`` by default). So every record of one tag whose
step has a given varint length is one fixed framed template: a batch is built by joining
templates in call order (in C) and patching wall times, steps and values in with vectorised
NumPy indexing; the record layer then fills in the data checksums.
"""

from __future__ import annotations

import numpy as np

from tbkit.plugins.scalars.summary import simple_scalar_template
from tbkit.record import framing, wire
from tbkit.record.crc import crc32c, patched_crcs

_MAX_VARINT = wire.MAX_VARINT_SIZE
_STEP_END = 8 + _MAX_VARINT  # columns: wall time 8, step varint 10, value 4
_COLUMNS = _STEP_END + 4


class ScalarBatchEncoder:
    """Encodes batches of float32 scalars ``(tag, value, step, wall_time)`` into framed records.

    Each record is a TF1 ``simple_value`` without metadata, byte for byte what
    ``torch.utils.tensorboard`` writes for ``add_scalar`` by default. A new tag costs O(1)
    amortised: the per-template tables grow by doubling.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._summaries: list[tuple[bytes, bytes]] = []  # (prefix, suffix) of the Summary, per id
        # Per key = id * _MAX_VARINT + (varint length - 1): the framed template record (zero at
        # every varying byte), its size, its data CRC, where the value goes, and the distance
        # to the data's end of each varying byte (wall time, step, value).
        self._records = np.empty(0, dtype=object)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._crcs = np.zeros(0, dtype=np.uint32)
        self._value_at = np.zeros(0, dtype=np.int64)
        self._distances = np.zeros((0, _COLUMNS), dtype=np.int64)

    def _new_id(self, tag: str) -> int:
        tid = len(self._summaries)
        self._summaries.append(simple_scalar_template(tag))
        needed = (tid + 1) * _MAX_VARINT
        if needed > len(self._sizes):
            grow = max(needed, 2 * len(self._sizes))
            self._records = _grown(self._records, grow, None)
            self._sizes = _grown(self._sizes, grow, 0)
            self._crcs = _grown(self._crcs, grow, 0)
            self._value_at = _grown(self._value_at, grow, 0)
            self._distances = _grown(self._distances, grow, 0)
        self._ids[tag] = tid
        return tid

    def _template(self, key: int) -> None:
        prefix, suffix = self._summaries[key // _MAX_VARINT]
        vlen = key % _MAX_VARINT + 1
        summary_field = wire.field_head(wire.EVENT_SUMMARY, len(prefix) + 4 + len(suffix))
        head = wire.fixed_event_head(vlen) + summary_field + prefix
        data = head + bytes(4) + suffix
        self._records[key] = framing.encode_record(data)
        self._sizes[key] = len(self._records[key])
        self._crcs[key] = crc32c(data)
        self._value_at[key] = len(head)
        wall_at, step_at = wire.FIXED_WALL_TIME_AT, wire.FIXED_STEP_AT
        places = [*range(wall_at, wall_at + 8), *range(step_at, step_at + vlen)]
        places += range(len(head), len(head) + 4)
        columns = [*range(8), *range(8, 8 + vlen), *range(_STEP_END, _COLUMNS)]
        self._distances[key, columns] = len(data) - np.array(places)

    def _template_ids(self, tags: tuple[str, ...]) -> np.ndarray:
        ids = self._ids
        try:
            return np.array([ids[tag] for tag in tags], dtype=np.int64)
        except KeyError:
            return np.array([self._id_of(tag) for tag in tags], dtype=np.int64)

    def _id_of(self, tag: str) -> int:
        tid = self._ids.get(tag)
        return self._new_id(tag) if tid is None else tid

    def encode(self, items: list[tuple[str, float, int, float]]) -> bytes:
        """Framed records of every scalar in ``items``, in order."""
        n = len(items)
        tags, values, steps, wall_times = zip(*items, strict=True)
        ids = self._template_ids(tags)
        step_u = np.array(steps, dtype=np.int64).view(np.uint64)
        vlen = wire.varint_sizes(step_u)
        keys = ids * _MAX_VARINT + vlen - 1
        for key in np.unique(keys).tolist():
            if self._records[key] is None:
                self._template(key)
        # The varying bytes of every record: wall time (8), step varint (up to 10), value (4);
        # only the varint columns some step in this batch needs are kept.
        width = int(vlen.max())
        used = np.r_[0 : 8 + width, _STEP_END:_COLUMNS]
        columns = np.empty((n, 12 + width), dtype=np.uint8)
        columns[:, :8] = np.array(wall_times, dtype="<f8").view(np.uint8).reshape(n, 8)
        wire.put_varints(step_u, vlen, columns[:, 8 : 8 + width])
        with np.errstate(over="ignore"):  # beyond float32's range is ±inf, as in a float32 cast
            columns[:, 8 + width :] = (
                np.array(values, dtype=np.float64).astype("<f4").view(np.uint8).reshape(n, 4)
            )
        sizes = self._sizes[keys]
        starts = np.cumsum(sizes) - sizes + framing.HEADER_SIZE  # where each record's data begins
        ends = starts + sizes - framing.OVERHEAD
        buf = np.frombuffer(bytearray(b"".join(self._records[keys].tolist())), dtype=np.uint8)
        distances = self._distances[keys][:, used]
        # A column that does not apply has distance 0: it lands on the footer, sealed below.
        buf[ends[:, None] - distances] = columns
        crcs = patched_crcs(self._crcs[keys], distances, columns)
        return framing.seal_data(buf, starts, sizes - framing.OVERHEAD, crcs)


def _grown(array: np.ndarray, rows: int, fill: object) -> np.ndarray:
    """``array`` with room for ``rows`` rows, the new ones set to ``fill``."""
    out = np.empty((rows, *array.shape[1:]), dtype=array.dtype)
    out[: len(array)] = array
    out[len(array) :] = fill
    return out
