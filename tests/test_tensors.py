"""make_tensor_proto / make_ndarray: round trips for every dtype, repeated-field forms, and TensorBoard."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tbkit._tensors import make_ndarray, make_tensor_proto
from tbkit.errors import InvalidArgumentError
from tbkit.proto import tensor_pb2, types_pb2

NUMERIC = [
    ("float16", types_pb2.DT_HALF),
    ("float32", types_pb2.DT_FLOAT),
    ("float64", types_pb2.DT_DOUBLE),
    ("int8", types_pb2.DT_INT8),
    ("int16", types_pb2.DT_INT16),
    ("int32", types_pb2.DT_INT32),
    ("int64", types_pb2.DT_INT64),
    ("uint8", types_pb2.DT_UINT8),
    ("uint16", types_pb2.DT_UINT16),
    ("uint32", types_pb2.DT_UINT32),
    ("uint64", types_pb2.DT_UINT64),
    ("bool", types_pb2.DT_BOOL),
    ("complex64", types_pb2.DT_COMPLEX64),
    ("complex128", types_pb2.DT_COMPLEX128),
]
DT_OF = {np.dtype(name): dt for name, dt in NUMERIC}
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
# Strings that UTF-8 can encode (no lone surrogates) and NumPy keeps (no NUL: "U" strips it).
texts = st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=6)


def unicode_arrays(shape_strategy=shapes):
    return hnp.arrays(np.dtype("U6"), shape_strategy, elements=texts)


def _through_the_wire(proto: tensor_pb2.TensorProto) -> tensor_pb2.TensorProto:
    return tensor_pb2.TensorProto.FromString(proto.SerializeToString())


def _same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    native = expected.astype(expected.dtype.newbyteorder("="))
    assert got.dtype == native.dtype
    assert got.dtype.isnative
    assert got.shape == expected.shape
    assert got.tobytes() == native.tobytes()  # bit-exact: NaN payloads and -0.0 survive


def _shape_proto(proto: tensor_pb2.TensorProto, *dims: int) -> tensor_pb2.TensorProto:
    for d in dims:
        proto.tensor_shape.dim.add(size=d)
    return proto


@pytest.mark.parametrize(("name", "dt"), NUMERIC)
@settings(max_examples=25)
@given(data=st.data())
def test_numeric_round_trip(name: str, dt: int, data: st.DataObject) -> None:
    array = data.draw(hnp.arrays(np.dtype(name), shapes))
    proto = _through_the_wire(make_tensor_proto(array))
    assert proto.dtype == dt
    assert [d.size for d in proto.tensor_shape.dim] == list(array.shape)
    assert proto.tensor_content == array.astype(array.dtype.newbyteorder("<")).tobytes()
    _same_bits(make_ndarray(proto), array)


@pytest.mark.parametrize(
    "name",
    [
        "float16",
        "float32",
        "float64",
        "int16",
        "int32",
        "int64",
        "uint32",
        "uint64",
        "complex64",
        "complex128",
    ],
)
@settings(max_examples=25)
@given(data=st.data())
def test_big_endian_input(name: str, data: st.DataObject) -> None:
    array = data.draw(hnp.arrays(np.dtype(name).newbyteorder(">"), shapes))
    proto = make_tensor_proto(array)
    assert proto.dtype == DT_OF[np.dtype(name)]
    assert proto.tensor_content == array.astype(np.dtype(name).newbyteorder("<")).tobytes()
    got = make_ndarray(_through_the_wire(proto))
    _same_bits(got, array)
    # Same proto as the little-endian twin.
    assert proto == make_tensor_proto(array.astype(np.dtype(name)))


def test_non_contiguous_input() -> None:
    array = np.arange(24, dtype=np.float32).reshape(4, 6)[::2, ::3].T
    got = make_ndarray(make_tensor_proto(array))
    np.testing.assert_array_equal(got, array)


def test_scalars_and_python_values() -> None:
    proto = make_tensor_proto(np.float32(2.5))
    assert list(proto.tensor_shape.dim) == []
    got = make_ndarray(proto)
    assert got.shape == () and got.dtype == np.float32 and got == 2.5


@given(unicode_arrays())
def test_unicode_arrays(array: np.ndarray) -> None:
    proto = _through_the_wire(make_tensor_proto(array))
    assert proto.dtype == types_pb2.DT_STRING
    assert not proto.tensor_content
    got = make_ndarray(proto)
    assert got.dtype == object
    assert got.shape == array.shape
    assert [x.decode("utf-8") for x in got.reshape(-1)] == array.reshape(-1).tolist()


@given(hnp.arrays(hnp.byte_string_dtypes(max_len=6), shapes))
def test_bytes_arrays(array: np.ndarray) -> None:
    got = make_ndarray(_through_the_wire(make_tensor_proto(array)))
    assert got.shape == array.shape
    assert got.reshape(-1).tolist() == array.reshape(-1).tolist()


@given(st.lists(st.one_of(st.text(max_size=8), st.binary(max_size=8)), max_size=8))
def test_object_arrays_of_str_and_bytes(items: list[str | bytes]) -> None:
    array = np.empty(len(items), dtype=object)
    array[:] = items
    got = make_ndarray(_through_the_wire(make_tensor_proto(array)))
    assert got.dtype == object
    assert got.tolist() == [x.encode("utf-8") if isinstance(x, str) else x for x in items]


def test_rank0_string_and_binary_blobs() -> None:
    blob = bytes(range(256))
    array = np.empty(2, dtype=object)
    array[:] = ["ünïcødé ✓", blob]
    got = make_ndarray(make_tensor_proto(array))
    assert got.tolist() == ["ünïcødé ✓".encode(), blob]
    scalar = make_ndarray(make_tensor_proto(np.asarray("x", dtype=object)))
    assert scalar.shape == () and scalar.item() == b"x"


@pytest.mark.parametrize(
    "array",
    [
        np.array([1, "a"], dtype=object),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.zeros(2, "float128") if hasattr(np, "float128") else np.zeros(2, "timedelta64[s]"),
    ],
    ids=["object-int", "datetime", "longdouble"],
)
def test_unsupported_arrays_are_refused(array: np.ndarray) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        make_tensor_proto(array)
    assert isinstance(info.value, ValueError)
    assert "int" in str(info.value) or str(array.dtype) in str(info.value)


def test_unencodable_string_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError):
        make_tensor_proto(np.array(["ok", "\ud800"]))


# -- repeated-field forms (how TensorFlow writes small constants) --------------------------------

REPEATED = [
    # (dtype, field, stored values, expected decoded values)
    (types_pb2.DT_FLOAT, "float_val", [1.5, -2.0], np.array([1.5, -2.0], np.float32)),
    (types_pb2.DT_DOUBLE, "double_val", [0.1, 1e300], np.array([0.1, 1e300], np.float64)),
    (types_pb2.DT_INT32, "int_val", [-(2**31), 2**31 - 1], np.array([-(2**31), 2**31 - 1], np.int32)),
    (types_pb2.DT_INT16, "int_val", [-300, 300], np.array([-300, 300], np.int16)),
    (types_pb2.DT_INT8, "int_val", [-128, 127], np.array([-128, 127], np.int8)),
    (types_pb2.DT_UINT8, "int_val", [0, 255], np.array([0, 255], np.uint8)),
    (types_pb2.DT_UINT16, "int_val", [0, 65535], np.array([0, 65535], np.uint16)),
    (types_pb2.DT_INT64, "int64_val", [-(2**63), 2**63 - 1], np.array([-(2**63), 2**63 - 1], np.int64)),
    (types_pb2.DT_UINT32, "uint32_val", [0, 2**32 - 1], np.array([0, 2**32 - 1], np.uint32)),
    (types_pb2.DT_UINT64, "uint64_val", [1, 2**64 - 1], np.array([1, 2**64 - 1], np.uint64)),
    (types_pb2.DT_BOOL, "bool_val", [True, False], np.array([True, False])),
    (
        types_pb2.DT_HALF,
        "half_val",
        np.array([1.0, -65504.0], np.float16).view(np.uint16).tolist(),
        np.array([1.0, -65504.0], np.float16),
    ),
    (
        types_pb2.DT_COMPLEX64,
        "scomplex_val",
        [1.0, 2.0, -3.0, 0.5],
        np.array([1 + 2j, -3 + 0.5j], np.complex64),
    ),
    (
        types_pb2.DT_COMPLEX128,
        "dcomplex_val",
        [1.0, 2.0, -3.0, 0.1],
        np.array([1 + 2j, -3 + 0.1j], np.complex128),
    ),
    (types_pb2.DT_STRING, "string_val", [b"a", "é".encode()], np.array([b"a", "é".encode()], dtype=object)),
]
REPEATED_IDS = [types_pb2.DataType.Name(r[0]) for r in REPEATED]


def _element_width(dt: int) -> int:
    return 2 if dt in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128) else 1


@pytest.mark.parametrize(("dt", "field", "stored", "expected"), REPEATED, ids=REPEATED_IDS)
def test_repeated_field_exact_count(dt, field, stored, expected) -> None:
    proto = _shape_proto(tensor_pb2.TensorProto(dtype=dt, **{field: stored}), len(expected))
    got = make_ndarray(_through_the_wire(proto))
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize(("dt", "field", "stored", "expected"), REPEATED, ids=REPEATED_IDS)
def test_repeated_field_single_value_is_broadcast(dt, field, stored, expected) -> None:
    one = stored[: _element_width(dt)]
    proto = _shape_proto(tensor_pb2.TensorProto(dtype=dt, **{field: one}), 2, 3)
    got = make_ndarray(_through_the_wire(proto))
    assert got.shape == (2, 3)
    assert got.dtype == expected.dtype
    assert got.reshape(-1).tolist() == [expected[0]] * 6


@pytest.mark.parametrize(("dt", "field", "stored", "expected"), REPEATED, ids=REPEATED_IDS)
def test_repeated_field_rank0(dt, field, stored, expected) -> None:
    proto = tensor_pb2.TensorProto(dtype=dt, **{field: stored[: _element_width(dt)]})
    got = make_ndarray(proto)
    assert got.shape == ()
    assert got.item() == expected[0]


def test_fewer_values_repeat_the_last_and_none_give_zeros() -> None:
    # TensorFlow's C++ Tensor::FromProto fills the missing elements with the last value given.
    proto = _shape_proto(tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0, 2.0]), 4)
    assert make_ndarray(proto).tolist() == [1.0, 2.0, 2.0, 2.0]
    empty = _shape_proto(tensor_pb2.TensorProto(dtype=types_pb2.DT_INT32), 2, 2)
    got = make_ndarray(empty)
    assert got.dtype == np.int32 and got.tolist() == [[0, 0], [0, 0]]
    strings = _shape_proto(tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING), 2)
    assert make_ndarray(strings).tolist() == [b"", b""]


def test_too_many_values_or_unknown_dtype_are_refused() -> None:
    proto = _shape_proto(tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0, 2.0, 3.0]), 2)
    with pytest.raises(InvalidArgumentError, match="3"):
        make_ndarray(proto)
    with pytest.raises(InvalidArgumentError, match="DT_BFLOAT16"):
        make_ndarray(tensor_pb2.TensorProto(dtype=types_pb2.DT_BFLOAT16, half_val=[0]))


# -- the same bytes through TensorBoard's own decoder ---------------------------------------------


@pytest.fixture(scope="module")
def tb():
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    from tensorboard.compat.proto import tensor_pb2 as tb_tensor_pb2

    def decode(proto: tensor_pb2.TensorProto) -> np.ndarray:
        return tensor_util.make_ndarray(tb_tensor_pb2.TensorProto.FromString(proto.SerializeToString()))

    return decode


@pytest.mark.interop
@pytest.mark.parametrize("name", [n for n, _ in NUMERIC])
@settings(max_examples=15)
@given(data=st.data())
def test_numeric_tensors_match_tensorboard(tb, name: str, data: st.DataObject) -> None:
    # TensorBoard has no uint32_val/uint64_val decoding, which an empty tensor would need.
    nonempty = name in ("uint32", "uint64")
    array = data.draw(hnp.arrays(np.dtype(name), shapes.filter(lambda s: not nonempty or 0 not in s)))
    proto = make_tensor_proto(array)
    ours, theirs = make_ndarray(proto), tb(proto)
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.interop
@given(unicode_arrays(shapes.filter(lambda s: int(np.prod(s)) != 1)))
def test_string_tensors_match_tensorboard(tb, array: np.ndarray) -> None:
    proto = make_tensor_proto(array)
    ours, theirs = make_ndarray(proto), tb(proto)
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()


_TB_REPEATED = [r for r in REPEATED if r[1] not in ("uint32_val", "uint64_val")]  # TensorBoard lacks these


@pytest.mark.interop
@pytest.mark.parametrize(
    ("dt", "field", "stored", "expected"),
    _TB_REPEATED,
    ids=[types_pb2.DataType.Name(r[0]) for r in _TB_REPEATED],
)
@pytest.mark.parametrize("single", [False, True], ids=["exact", "broadcast"])
def test_repeated_forms_match_tensorboard(tb, dt, field, stored, expected, single) -> None:
    if single:
        proto = _shape_proto(tensor_pb2.TensorProto(dtype=dt, **{field: stored[: _element_width(dt)]}), 3, 2)
    else:
        proto = _shape_proto(tensor_pb2.TensorProto(dtype=dt, **{field: stored}), len(expected))
    ours, theirs = make_ndarray(proto), tb(proto)
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()
