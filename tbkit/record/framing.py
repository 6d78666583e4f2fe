"""TFRecord framing: ``uint64 length · uint32 masked_crc(length) · data · uint32 masked_crc(data)``.

All integers are little-endian. This module is the only place that frames records; the
writer encodes with :func:`encode_record` and the readers decode with :func:`parse_record`
(one record, with a status) or :func:`iter_records` (strict iteration over a buffer).
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import numpy as np

from tbkit.errors import CorruptRecordError
from tbkit.record.crc import crc32c, mask, mask_array

HEADER_SIZE = 12
FOOTER_SIZE = 4
OVERHEAD = HEADER_SIZE + FOOTER_SIZE

_pack_q = struct.Struct("<Q").pack
_pack_i = struct.Struct("<I").pack
_unpack_qi = struct.Struct("<QI").unpack_from
_unpack_i = struct.Struct("<I").unpack_from


def encode_record(data: bytes) -> bytes:
    """Frame ``data`` as one TFRecord.

    Example:
        >>> len(encode_record(b"abc"))
        19
    """
    header = _pack_q(len(data))
    return b"".join((header, _pack_i(mask(crc32c(header))), data, _pack_i(mask(crc32c(data)))))


def encode_records(items: Iterable[bytes]) -> bytes:
    """Frame every item of ``items`` and concatenate the records."""
    return b"".join(map(encode_record, items))


class Status(enum.Enum):
    """How :func:`parse_record` found the bytes at an offset."""

    OK = "ok"
    PARTIAL = "partial"  # the buffer ends inside the record: more bytes may come
    BAD_LENGTH_CRC = "bad length checksum"
    BAD_DATA_CRC = "bad data checksum"


class Parsed(NamedTuple):
    """One :func:`parse_record` answer: status, the record's data, and the next offset."""

    status: Status
    data: bytes
    end: int


_EMPTY = b""


def parse_record(buf: bytes, offset: int) -> Parsed:
    """Decode the record starting at ``offset`` of ``buf``, checking both checksums.

    ``end`` is the offset just past the record (for OK and BAD_DATA_CRC, whose framing
    is trustworthy), or ``offset`` itself otherwise. An absurd length is reported as
    PARTIAL or BAD_LENGTH_CRC without allocating anything.
    """
    avail = len(buf) - offset
    if avail < HEADER_SIZE:
        return Parsed(Status.PARTIAL, _EMPTY, offset)
    length, length_crc = _unpack_qi(buf, offset)
    if mask(crc32c(buf[offset : offset + 8])) != length_crc:
        return Parsed(Status.BAD_LENGTH_CRC, _EMPTY, offset)
    end = offset + HEADER_SIZE + length + FOOTER_SIZE
    if end > len(buf):
        return Parsed(Status.PARTIAL, _EMPTY, offset)
    data = buf[offset + HEADER_SIZE : end - FOOTER_SIZE]
    if mask(crc32c(data)) != _unpack_i(buf, end - FOOTER_SIZE)[0]:
        return Parsed(Status.BAD_DATA_CRC, data, end)
    return Parsed(Status.OK, data, end)


def iter_records(buf: bytes, *, path: str, start: int = 0) -> Iterator[tuple[int, bytes]]:
    """Yield ``(offset, data)`` for each record of ``buf``, strictly.

    A checksum mismatch raises :class:`~tbkit.errors.CorruptRecordError` with ``path``
    and the record's byte offset; a partial last record ends iteration quietly (the
    file may still be being written).
    """
    offset = start
    while True:
        status, data, end = parse_record(buf, offset)
        if status is Status.OK:
            yield offset, data
            offset = end
        elif status is Status.PARTIAL:
            return
        else:
            raise CorruptRecordError(f"corrupt record: {status.value}", path=path, offset=offset)


def seal_data(
    buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, crcs: np.ndarray | None = None
) -> bytes:
    """Fill in the data checksums of a batch of framed records, in place, and return its bytes.

    ``buf`` holds whole records back to back whose length headers are already right (for
    example copies of a template record whose data were then patched); ``starts[i]`` is the
    offset of record ``i``'s data and ``lengths[i]`` its length. ``crcs``, when given, are
    the records' unmasked data CRCs (for example from :func:`~tbkit.record.crc.patched_crcs`);
    otherwise they are computed here.
    """
    ends = starts + lengths
    if crcs is None:
        raw = buf.tobytes()
        crcs = np.fromiter(
            (crc32c(raw[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)),
            dtype=np.uint64,
            count=len(starts),
        )
    masked = mask_array(crcs).astype("<u4")
    buf[ends[:, None] + _R4] = masked.view(np.uint8).reshape(len(starts), 4)
    return buf.tobytes()


_R4 = np.arange(4)
