"""Batch encoding of scalar events with NumPy: the writer thread's hot path.

A scalar event is ``Event{1: wall_time, 2: step, 5: Summary}``, both head fields always
present (:func:`tbkit.record.wire.fixed_event_head`), where the summary is a TF1
``simple_value`` (as torch writes ``add_scalar`` by default): per tag, fixed bytes ending
in the value's 4 bytes. So every record of one tag whose step has a given varint length is
one fixed framed template: a batch is built by joining templates in call order (in C) and
patching wall times, steps and values in with vectorised NumPy indexing; the record layer
then fills in the data checksums.

Tags are kept in slots: a dict maps a tag to its slot, and the per-template tables have
room for a slot's every step length, growing by doubling, so a new tag costs O(1)
amortised; a template is built on the first use of its step length.

When the compiled core is there (:func:`tbkit.record.native.writer_core`), a batch is
encoded by its ``encode_scalars`` instead, byte for byte the same records, its byte work
done without the GIL (the training loop's thread runs on meanwhile); the NumPy encoder
remains for items outside its form and for the pure-Python path.
"""

from __future__ import annotations

import numpy as np

from tbkit.record import framing, native, wire
from tbkit.record.crc import crc32c, patched_crcs

_MAX_VARINT = wire.MAX_VARINT_SIZE
_FIRST_CAPACITY = 16  # tags
_VALUE_KEY = bytes((wire.VALUE_SIMPLE_VALUE,))
_ZERO_VALUE = bytes(4)
# Where the varying bytes stand in a record's data: the wall time's 8 bytes and the step's
# varint from the start (the fixed event head), the value's 4 bytes at the very end.
_WALL_AT, _STEP_AT = wire.FIXED_WALL_TIME_AT, wire.FIXED_STEP_AT
_HEAD_PLACES = np.r_[_WALL_AT : _WALL_AT + 8, _STEP_AT : _STEP_AT + _MAX_VARINT]
_FIXED_HEADS = [wire.fixed_event_head(size) for size in range(1, _MAX_VARINT + 1)]
_VALUE_DISTANCES = np.array([4, 3, 2, 1])  # to the data's end
_GROUPS = np.arange(_MAX_VARINT)
_SHORT_TAG = 0x7F - 9  # the longest tag (in UTF-8 bytes) whose summary's lengths are one-byte varints


def summary_tail(tag: str) -> bytes:
    """The ``Event`` bytes after its head for a ``simple_value`` of ``tag``, the value zeroed.

    That is the ``Event.summary`` field holding ``Summary{value: [Value{tag, simple_value}]}``
    serialized as protobuf does (fields in number order); the value's 4 bytes come last.

    Example:
        >>> summary_tail("a").hex()
        '2a0a0a080a01611500000000'
    """
    raw = tag.encode()
    size = len(raw)
    if size <= _SHORT_TAG:  # every length is one byte: the bytes at once
        lengths = (wire.EVENT_SUMMARY, size + 9, wire.SUMMARY_VALUE, size + 7, wire.VALUE_TAG, size)
        return b"".join((bytes(lengths), raw, _VALUE_KEY, _ZERO_VALUE))
    value = wire.length_delimited(wire.VALUE_TAG, raw) + _VALUE_KEY + _ZERO_VALUE
    return wire.length_delimited(wire.EVENT_SUMMARY, wire.length_delimited(wire.SUMMARY_VALUE, value))


class ScalarBatchEncoder:
    """Encodes batches of float32 scalars ``(tag, value, step, wall_time)`` into framed records.

    Each record is a TF1 ``simple_value`` without metadata, byte for byte what
    ``torch.utils.tensorboard`` writes for ``add_scalar`` by default.

    Attributes:
        growths: How many times the per-template tables were reallocated (a logarithm of
            the number of tags).
    """

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}
        self._tails: list[bytes] = []  # per slot: summary_tail(tag)
        self._tail_of: dict[str, bytes] = {}  # tag -> summary_tail(tag), for the compiled core
        self.growths = 0
        # Per key = slot * _MAX_VARINT + (varint length - 1): whether its template is built,
        # the framed template record (zero at every varying byte), its size and its data CRC.
        self._built = np.zeros(0, dtype=bool)
        self._records = np.empty(0, dtype=object)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._crcs = np.zeros(0, dtype=np.uint32)

    @property
    def tags(self) -> int:
        """How many distinct tags this encoder has seen."""
        return len(self._tails)

    def _new_slot(self, tag: str) -> int:
        slot = len(self._tails)
        tail = summary_tail(tag)
        self._tails.append(tail)
        self._tail_of[tag] = tail
        if (slot + 1) * _MAX_VARINT > len(self._sizes):
            self._grow(max(_FIRST_CAPACITY, 2 * slot) * _MAX_VARINT)
        self._slots[tag] = slot
        return slot

    def _grow(self, keys: int) -> None:
        self.growths += 1
        self._built = _grown(self._built, keys, False)
        self._records = _grown(self._records, keys, None)
        self._sizes = _grown(self._sizes, keys, 0)
        self._crcs = _grown(self._crcs, keys, 0)

    def _build(self, keys: list[int]) -> None:
        tails, heads, frame = self._tails, _FIXED_HEADS, framing.encode_record
        datas = [heads[key % _MAX_VARINT] + tails[key // _MAX_VARINT] for key in keys]
        records = [frame(data) for data in datas]
        self._records[keys] = records
        self._sizes[keys] = [len(record) for record in records]
        self._crcs[keys] = [crc32c(data) for data in datas]
        self._built[keys] = True

    def _slots_of(self, tags: tuple[str, ...]) -> np.ndarray:
        slots = self._slots
        try:
            return np.array([slots[tag] for tag in tags], dtype=np.int64)
        except KeyError:
            get, new = slots.get, self._new_slot
            return np.array([s if (s := get(tag)) is not None else new(tag) for tag in tags], dtype=np.int64)

    def encode(self, items: list[tuple[str, float, int, float]]) -> bytes:
        """Framed records of every scalar in ``items``, in order."""
        core = native.writer_core()
        if core is not None:
            found = core.encode_scalars(items, self._tail_of)
            if found is None:  # a tag new to this encoder: given its slot, then asked again
                slots, new = self._slots, self._new_slot
                for item in items:
                    if item[0] not in slots:
                        new(item[0])
                found = core.encode_scalars(items, self._tail_of)
            if isinstance(found, bytes):
                return found
        return self.encode_numpy(items)

    def encode_numpy(self, items: list[tuple[str, float, int, float]]) -> bytes:
        """:meth:`encode` with NumPy (the pure-Python path, and items the core leaves to it)."""
        n = len(items)
        tags, values, steps, wall_times = zip(*items)  # noqa: B905 - 4-tuples from the queue
        step_u = np.array(steps, dtype=np.int64).view(np.uint64)
        vlen = wire.varint_sizes(step_u)
        keys = self._slots_of(tags) * _MAX_VARINT + (vlen - 1)
        built = self._built[keys]
        if not built.all():
            self._build(np.unique(keys[~built]).tolist())
        # The varying bytes of every record: wall time (8), step varint (as wide as the
        # batch's widest), value (4); and each one's distance to its data's end.
        width = int(vlen.max())
        columns = np.empty((n, 12 + width), dtype=np.uint8)
        columns[:, :8] = np.array(wall_times, dtype="<f8").view(np.uint8).reshape(n, 8)
        wire.put_varints(step_u, vlen, columns[:, 8 : 8 + width])
        with np.errstate(over="ignore"):  # beyond float32's range is ±inf, as in a float32 cast
            columns[:, 8 + width :] = (
                np.array(values, dtype=np.float64).astype("<f4").view(np.uint8).reshape(n, 4)
            )
        sizes = self._sizes[keys]
        lengths = sizes - framing.OVERHEAD
        data_ends = np.cumsum(sizes) - framing.FOOTER_SIZE
        distances = np.empty((n, 12 + width), dtype=np.int64)
        distances[:, : 8 + width] = lengths[:, None] - _HEAD_PLACES[: 8 + width]
        distances[:, 8 + width :] = _VALUE_DISTANCES
        if width > 1 and int(vlen.min()) < width:
            # A step byte a record has not: distance 0, so it adds nothing to the CRC and
            # lands (a zero) on the record's footer, which is sealed below.
            distances[:, 8 : 8 + width][vlen[:, None] <= _GROUPS[:width]] = 0
        buf = np.frombuffer(bytearray().join(self._records[keys].tolist()), dtype=np.uint8)
        buf[data_ends[:, None] - distances] = columns
        crcs = patched_crcs(self._crcs[keys], distances, columns)
        return framing.seal_data(buf, data_ends - lengths, lengths, crcs)


def _grown(array: np.ndarray, rows: int, fill: object) -> np.ndarray:
    """``array`` with room for ``rows`` rows, the new ones set to ``fill``."""
    out = np.empty((rows, *array.shape[1:]), dtype=array.dtype)
    out[: len(array)] = array
    out[len(array) :] = fill
    return out
