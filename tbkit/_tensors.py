"""NumPy arrays to and from ``TensorProto``, the way TensorFlow lays them out."""

from __future__ import annotations

import numpy as np

from tbkit.errors import InvalidArgumentError
from tbkit.proto import tensor_pb2, tensor_shape_pb2, types_pb2

_NP_TO_DT = {
    np.dtype(np.float16): types_pb2.DT_HALF,
    np.dtype(np.float32): types_pb2.DT_FLOAT,
    np.dtype(np.float64): types_pb2.DT_DOUBLE,
    np.dtype(np.int8): types_pb2.DT_INT8,
    np.dtype(np.int16): types_pb2.DT_INT16,
    np.dtype(np.int32): types_pb2.DT_INT32,
    np.dtype(np.int64): types_pb2.DT_INT64,
    np.dtype(np.uint8): types_pb2.DT_UINT8,
    np.dtype(np.uint16): types_pb2.DT_UINT16,
    np.dtype(np.uint32): types_pb2.DT_UINT32,
    np.dtype(np.uint64): types_pb2.DT_UINT64,
    np.dtype(np.bool_): types_pb2.DT_BOOL,
    np.dtype(np.complex64): types_pb2.DT_COMPLEX64,
    np.dtype(np.complex128): types_pb2.DT_COMPLEX128,
}
_DT_TO_NP = {dt: npd.newbyteorder("<") for npd, dt in _NP_TO_DT.items()}

# The most elements a tensor may declare beyond the values it holds (TensorFlow's rule repeats
# the last value of a repeated field to fill the shape): 2**20, 8 MiB of float64 at most.
# A shape declaring more is refused before anything is allocated.
MAX_FILL = 1 << 20

# Which repeated *_val field holds each type when tensor_content is not used.
_VAL_FIELD = {
    types_pb2.DT_FLOAT: "float_val",
    types_pb2.DT_DOUBLE: "double_val",
    types_pb2.DT_INT32: "int_val",
    types_pb2.DT_INT16: "int_val",
    types_pb2.DT_INT8: "int_val",
    types_pb2.DT_UINT8: "int_val",
    types_pb2.DT_UINT16: "int_val",
    types_pb2.DT_INT64: "int64_val",
    types_pb2.DT_UINT32: "uint32_val",
    types_pb2.DT_UINT64: "uint64_val",
    types_pb2.DT_BOOL: "bool_val",
    types_pb2.DT_HALF: "half_val",
    types_pb2.DT_COMPLEX64: "scomplex_val",
    types_pb2.DT_COMPLEX128: "dcomplex_val",
}


def shape_proto(shape: tuple[int, ...]) -> tensor_shape_pb2.TensorShapeProto:
    """A ``TensorShapeProto`` for ``shape``."""
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in shape]
    )


def _encode_str(item: object) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        try:
            return item.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidArgumentError(
                f"a string cannot be encoded as UTF-8: {item!r:.80} ({exc.reason})"
            ) from None
    raise InvalidArgumentError(f"a string tensor holds only str or bytes, got {type(item).__name__}")


def make_tensor_proto(array: np.ndarray) -> tensor_pb2.TensorProto:
    """Encode ``array`` as a ``TensorProto`` (numbers in ``tensor_content``, little-endian).

    Strings (``str``, ``bytes``, or object arrays of them) become ``DT_STRING`` with one
    ``string_val`` per element, UTF-8 encoded.

    Example:
        >>> make_tensor_proto(np.zeros((2, 3), np.float32)).dtype == types_pb2.DT_FLOAT
        True
    """
    arr = np.asarray(array)
    if arr.dtype.kind in "USO":
        return tensor_pb2.TensorProto(
            dtype=types_pb2.DT_STRING,
            tensor_shape=shape_proto(arr.shape),
            string_val=[_encode_str(x) for x in arr.reshape(-1).tolist()],
        )
    dt = (
        _NP_TO_DT.get(arr.dtype.newbyteorder("=")) if arr.dtype.byteorder != "|" else _NP_TO_DT.get(arr.dtype)
    )
    if dt is None:
        raise InvalidArgumentError(f"cannot write a tensor of dtype {arr.dtype}")
    content = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return tensor_pb2.TensorProto(dtype=dt, tensor_shape=shape_proto(arr.shape), tensor_content=content)


def _shape(proto: tensor_pb2.TensorProto) -> tuple[tuple[int, ...], int]:
    """The declared shape and its element count, checked: no negative dim, no overflow."""
    shape = tuple(int(d.size) for d in proto.tensor_shape.dim)
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"tensor shape {list(shape)} has a negative dimension")
    count = 1
    for d in shape:  # Python ints: a product that overflows int64 is still seen as huge
        count *= d
    return shape, count


def make_ndarray(proto: tensor_pb2.TensorProto) -> np.ndarray:
    """Decode a ``TensorProto`` to a NumPy array, as TensorFlow's ``make_ndarray`` does.

    Strings come back as an object array of ``bytes``. When the repeated value field holds
    fewer values than the shape needs, the last value is repeated (TensorFlow's rule), up to
    :data:`MAX_FILL` elements. The declared shape is checked against the bytes present
    before anything is allocated, so a hostile record cannot make the reader allocate more
    than the record's own size (or ``MAX_FILL`` elements).

    Raises:
        InvalidArgumentError: An unknown dtype, a negative dimension, ``tensor_content``
            whose size does not match the shape, more values than the shape holds, or a
            shape needing more than ``MAX_FILL`` repeated elements.
    """
    shape, count = _shape(proto)
    if proto.dtype == types_pb2.DT_STRING:
        _check_fill(len(proto.string_val), count, shape)
        values = np.empty(len(proto.string_val), dtype=object)
        values[:] = list(proto.string_val)
        return _fill(values, count, np.dtype(object)).reshape(shape)
    npd = _DT_TO_NP.get(proto.dtype)
    if npd is None:
        raise InvalidArgumentError(f"unsupported tensor dtype {_dtype_name(proto.dtype)}")
    if proto.tensor_content:
        size = len(proto.tensor_content)
        if count * npd.itemsize != size:
            raise InvalidArgumentError(
                f"tensor_content holds {size} bytes, shape {list(shape)} of {npd.name} needs "
                f"{count * npd.itemsize}"
            )
        return (
            np.frombuffer(proto.tensor_content, dtype=npd)
            .astype(npd.newbyteorder("="), copy=True)
            .reshape(shape)
        )
    field = _VAL_FIELD[proto.dtype]
    raw = getattr(proto, field)
    pairs = proto.dtype in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128)
    _check_fill(len(raw) // 2 if pairs else len(raw), count, shape)
    if proto.dtype == types_pb2.DT_HALF:
        values = np.asarray(raw, dtype=np.uint16).view(np.float16)
    elif pairs:
        floats = np.asarray(raw, dtype=np.float32 if proto.dtype == types_pb2.DT_COMPLEX64 else np.float64)
        values = floats[0::2] + 1j * floats[1::2]
    else:
        values = np.asarray(raw, dtype=npd.newbyteorder("="))
    return _fill(values.astype(npd.newbyteorder("="), copy=False), count, npd.newbyteorder("=")).reshape(
        shape
    )


def _dtype_name(dtype: int) -> str:
    try:
        return types_pb2.DataType.Name(dtype)
    except ValueError:
        return str(dtype)


def _check_fill(present: int, count: int, shape: tuple[int, ...]) -> None:
    """Refuse more values than the shape holds, and a fill beyond :data:`MAX_FILL` elements."""
    if present > count:
        raise InvalidArgumentError(
            f"tensor holds {present} values for shape {list(shape)} ({count} elements)"
        )
    if count > max(present, MAX_FILL):
        raise InvalidArgumentError(
            f"tensor shape {list(shape)} declares {count} elements but holds {present} values; "
            f"more than {MAX_FILL} repeated elements are not read"
        )


def _fill(values: np.ndarray, count: int, dtype: np.dtype) -> np.ndarray:
    if values.size == count:
        return values
    if values.size == 0:
        return np.zeros(count, dtype=dtype) if dtype.kind != "O" else np.full(count, b"", dtype=object)
    if values.size > count:
        raise InvalidArgumentError(f"tensor holds {values.size} values for {count} elements")
    return np.concatenate([values, np.repeat(values[-1:], count - values.size)])
