"""The protobuf wire format, by hand: every protobuf byte tbkit writes or matches without a proto.

The hot paths skip the protobuf library: the writer's scalar batches
(:mod:`tbkit.writer._scalars`), the reader's scalar fast path (:mod:`tbkit.reader.fastscalar`)
and the watcher's histogram and norm events (:mod:`tbkit.integrations._segments`). What they
need of the wire format is here, once: varints (one at a time and vectorised, both ways),
the field keys as named constants, the ``Event`` head (wall time, step) and length-delimited
fields. ``tests/record/test_wire.py`` checks these bytes against ``SerializeToString()``.

The layouts the fast paths build and recognise::

    Event   = 09 <wall_time f64> 10 <step varint> 2a <len> Summary
    Summary = 0a <len> Value
    Value   = 0a <len> <tag> + 15 <f32>                                   (simple_value)
                             | 42 <len> 08 <dtype> 12 00 <key> <len> <value>  (rank-0 tensor)

where a rank-0 tensor's ``<key>`` is that of ``tensor_content``, ``float_val`` or ``double_val``.

Example:
    >>> from tbkit.proto import event_pb2
    >>> event_head(3, 1.5) == event_pb2.Event(wall_time=1.5, step=3).SerializeToString()
    True
"""

from __future__ import annotations

import struct

import numpy as np

from tbkit.proto import types_pb2

__all__ = [
    "EVENT_STEP",
    "EVENT_SUMMARY",
    "EVENT_WALL_TIME",
    "FIXED32",
    "FIXED64",
    "FIXED_STEP_AT",
    "FIXED_STEP_KEY_AT",
    "FIXED_WALL_TIME_AT",
    "LEN",
    "MAX_VARINT_SIZE",
    "SUMMARY_VALUE",
    "TENSOR_CONTENT",
    "TENSOR_DOUBLE_VAL",
    "TENSOR_DTYPE",
    "TENSOR_FLOAT_VAL",
    "TENSOR_SHAPE",
    "VALUE_METADATA",
    "VALUE_SIMPLE_VALUE",
    "VALUE_TAG",
    "VALUE_TENSOR",
    "VARINT",
    "decode_varints",
    "event_head",
    "field_head",
    "fixed_event_head",
    "key",
    "length_delimited",
    "put_varints",
    "rank0_tensor_prefix",
    "varint",
    "varint_sizes",
]

# -- wire types and field keys ---------------------------------------------------------------

VARINT = 0
FIXED64 = 1
LEN = 2  # length-delimited: bytes, strings, messages, packed repeated fields
FIXED32 = 5


def key(field: int, wire_type: int) -> int:
    """The key of a field: its number and wire type (one byte for fields 1 to 15).

    Example:
        >>> hex(key(5, LEN))
        '0x2a'
    """
    return field << 3 | wire_type


# Event (tbkit/proto/event.proto)
EVENT_WALL_TIME = key(1, FIXED64)  # double wall_time
EVENT_STEP = key(2, VARINT)  # int64 step
EVENT_SUMMARY = key(5, LEN)  # Summary summary
# Summary (summary.proto)
SUMMARY_VALUE = key(1, LEN)  # repeated Value value
# Summary.Value
VALUE_TAG = key(1, LEN)  # string tag
VALUE_SIMPLE_VALUE = key(2, FIXED32)  # float simple_value
VALUE_TENSOR = key(8, LEN)  # TensorProto tensor
VALUE_METADATA = key(9, LEN)  # SummaryMetadata metadata
# TensorProto (tensor.proto)
TENSOR_DTYPE = key(1, VARINT)  # DataType dtype
TENSOR_SHAPE = key(2, LEN)  # TensorShapeProto tensor_shape
TENSOR_CONTENT = key(4, LEN)  # bytes tensor_content
TENSOR_FLOAT_VAL = key(5, LEN)  # repeated float float_val, packed
TENSOR_DOUBLE_VAL = key(6, LEN)  # repeated double double_val, packed

# -- varints ---------------------------------------------------------------------------------

MAX_VARINT_SIZE = 10  # a uint64 (and a negative int64, as its two's complement)
_U64 = (1 << 64) - 1
_SMALL = [bytes((n,)) for n in range(0x80)]


def varint(n: int) -> bytes:
    """Protobuf's varint of ``n``: a uint64, or a negative int64 as its 10-byte two's complement.

    Example:
        >>> varint(300).hex(), len(varint(-1))
        ('ac02', 10)
    """
    if 0 <= n < 0x80:
        return _SMALL[n]
    if not -(1 << 63) <= n <= _U64:
        raise ValueError(f"{n} is outside the int64 and uint64 ranges")
    n &= _U64
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_VARINT_LIMITS = np.array([1 << (7 * k) for k in range(1, MAX_VARINT_SIZE)], dtype=np.uint64)
_GROUPS = np.arange(MAX_VARINT_SIZE)
_SHIFTS = (7 * _GROUPS).astype(np.uint64)


def varint_sizes(values: np.ndarray) -> np.ndarray:
    """The byte count (int64) of each varint of a uint64 array (int64 values: ``.view(np.uint64)``).

    Example:
        >>> varint_sizes(np.array([0, 127, 128, -1], dtype=np.int64).view(np.uint64)).tolist()
        [1, 1, 2, 10]
    """
    return 1 + np.searchsorted(_VARINT_LIMITS, values, side="right")


def put_varints(values: np.ndarray, sizes: np.ndarray, out: np.ndarray) -> None:
    """Write the varint of each of ``values`` (uint64) into its row of ``out``, zeros after it.

    ``sizes`` is :func:`varint_sizes` of ``values``; ``out`` is uint8, one row per value and
    at least as many columns as the largest size (a view into a larger array works).

    Example:
        >>> u = np.array([1, 300], dtype=np.uint64)
        >>> out = np.empty((2, 2), dtype=np.uint8)
        >>> put_varints(u, varint_sizes(u), out)
        >>> out.tolist()
        [[1, 0], [172, 2]]
    """
    width = out.shape[1]
    groups = (values[:, None] >> _SHIFTS[:width]) & np.uint64(0x7F)
    if width > 1:
        groups[(sizes - 1)[:, None] > _GROUPS[:width]] |= np.uint64(0x80)
        groups[sizes[:, None] <= _GROUPS[:width]] = 0
    out[...] = groups


def decode_varints(u8: np.ndarray, pos: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode the varints starting at ``pos`` in ``u8``, each at most ``limit`` bytes long.

    Returns:
        ``(value as uint64, byte count, well-formed flag)``; a varint is not well formed
        when it runs over ``limit`` bytes (reads past the buffer's end see its last byte).

    Example:
        >>> u8 = np.frombuffer(varint(300) + varint(5), dtype=np.uint8)
        >>> [a.tolist() for a in decode_varints(u8, np.array([0, 2]), 10)]
        [[300, 5], [2, 1], [True, True]]
    """
    n = len(u8)
    value = np.zeros(len(pos), dtype=np.uint64)
    count = np.zeros(len(pos), dtype=np.int64)
    more = np.ones(len(pos), dtype=bool)
    for i in range(limit):
        if not more.any():
            break
        byte = u8[np.minimum(pos + i, n - 1)].astype(np.uint64)
        value |= np.where(more, (byte & np.uint64(0x7F)) << np.uint64(7 * i), np.uint64(0))
        count += more
        more &= byte >= 0x80
    return value, count, ~more


# -- fields and messages ---------------------------------------------------------------------


def field_head(field_key: int, length: int) -> bytes:
    """The key and length of a length-delimited field: its ``length`` payload bytes follow.

    Example:
        >>> field_head(EVENT_SUMMARY, 3).hex()
        '2a03'
    """
    return varint(field_key) + varint(length)


def length_delimited(field_key: int, payload: bytes) -> bytes:
    """A whole length-delimited field: key, length, ``payload``.

    Example:
        >>> length_delimited(VALUE_TAG, b"loss")
        b'\\n\\x04loss'
    """
    return field_head(field_key, len(payload)) + payload


_WALL_TIME_KEY = bytes((EVENT_WALL_TIME,))
_STEP_KEY = bytes((EVENT_STEP,))
_ZERO8 = bytes(8)
_pack_double = struct.Struct("<d").pack


def event_head(step: int, wall_time: float) -> bytes:
    """``Event.wall_time`` and ``Event.step`` as ``SerializeToString()`` writes them.

    A field equal to zero is left out (proto3); a wall time of ``-0.0`` is not zero (its
    bits are not), NaN is written with its bits, a negative step takes 10 bytes. The
    ``Event``'s other fields (its summary: :func:`length_delimited` of ``EVENT_SUMMARY``) follow.

    Example:
        >>> event_head(0, 0.0), event_head(1, 0.0)
        (b'', b'\\x10\\x01')
    """
    packed = _pack_double(wall_time)
    head = _WALL_TIME_KEY + packed if packed != _ZERO8 else b""
    return head + _STEP_KEY + varint(step) if step else head


FIXED_WALL_TIME_AT = 1  # in a fixed event head: where the wall time's 8 bytes are,
FIXED_STEP_KEY_AT = 9  # the step's key,
FIXED_STEP_AT = 10  # and the step's varint


def fixed_event_head(step_size: int) -> bytes:
    """An ``Event`` head with both fields always present, zeroed, to be patched in place.

    ``09 <8 bytes> 10 <step_size bytes>``: the wall time's little-endian double goes at
    ``FIXED_WALL_TIME_AT``, the step's varint (``step_size`` bytes) at ``FIXED_STEP_AT``.
    This is the layout of the writer's scalar batches and of the reader's scalar fast
    path. It parses as the same ``Event`` as :func:`event_head`'s bytes and equals them
    except where that leaves a zero field out (step 0, wall time 0.0).

    Example:
        >>> fixed_event_head(1).hex()
        '0900000000000000001000'
    """
    return _WALL_TIME_KEY + _ZERO8 + _STEP_KEY + bytes(step_size)


_VALUE_WIDTH = {types_pb2.DT_FLOAT: 4, types_pb2.DT_DOUBLE: 8}


def rank0_tensor_prefix(dtype: int, value_key: int) -> bytes:
    """``Value.tensor`` of a rank-0 tensor up to its value's bytes, as protobuf writes it.

    ``dtype`` is ``DT_FLOAT`` or ``DT_DOUBLE``; the value (4 or 8 little-endian bytes) is
    in ``tensor_content`` (``value_key`` ``TENSOR_CONTENT``) or in the packed
    ``float_val`` / ``double_val`` (``TENSOR_FLOAT_VAL`` / ``TENSOR_DOUBLE_VAL``). The
    tensor's shape is present and empty (``12 00``), as ``make_tensor_proto`` leaves it.

    Example:
        >>> rank0_tensor_prefix(types_pb2.DT_FLOAT, TENSOR_CONTENT).hex()
        '420a080112002204'
    """
    width = _VALUE_WIDTH[dtype]
    body = bytes((TENSOR_DTYPE, dtype, TENSOR_SHAPE, 0)) + field_head(value_key, width)
    return field_head(VALUE_TENSOR, len(body) + width) + body
