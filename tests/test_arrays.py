"""to_numpy / to_float: Python, NumPy, PyTorch (and JAX if installed); TensorFlow is in tests/interop."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tbkit._arrays import to_float, to_numpy


@pytest.mark.parametrize(
    ("value", "dtype", "shape"),
    [
        (3, np.int64, ()),
        (2.5, np.float64, ()),
        (True, np.bool_, ()),
        ([1, 2, 3], np.int64, (3,)),
        ([[1.0, 2.0], [3.0, 4.0]], np.float64, (2, 2)),
        ((1, 2.5), np.float64, (2,)),
        ([], np.float64, (0,)),
    ],
)
def test_python_values(value, dtype, shape) -> None:
    arr = to_numpy(value)
    assert isinstance(arr, np.ndarray)
    assert arr.dtype == dtype
    assert arr.shape == shape
    np.testing.assert_array_equal(arr, np.asarray(value))


def test_numpy_array_is_returned_without_copy() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert to_numpy(a) is a
    b = np.arange(4, dtype=">i4")
    assert to_numpy(b) is b


@pytest.mark.parametrize(
    "scalar", [np.float32(1.5), np.int8(-3), np.uint64(2**63), np.bool_(True), np.float16(0.5)]
)
def test_numpy_scalars(scalar) -> None:
    arr = to_numpy(scalar)
    assert arr.shape == ()
    assert arr.dtype == scalar.dtype
    assert arr.item() == scalar.item()


def test_objects_with_array_protocol() -> None:
    class Wrapper:
        def __array__(self, dtype=None, copy=None):
            return np.array([7, 8], dtype=np.int16)

    arr = to_numpy(Wrapper())
    assert arr.dtype == np.int16
    assert arr.tolist() == [7, 8]


@pytest.mark.parametrize(
    ("value", "exc"),
    [
        (None, TypeError),
        ("text", TypeError),
        ({"a": 1}, TypeError),
        ([None], TypeError),
        (object(), TypeError),
    ],
)
def test_to_numpy_refuses_non_numeric_naming_the_argument(value, exc) -> None:
    with pytest.raises(exc, match="my_arg"):
        to_numpy(value, name="my_arg")


def test_ragged_list_is_a_type_error_naming_the_argument() -> None:
    with pytest.raises(TypeError, match="my_arg"):
        to_numpy([[1, 2], [3]], name="my_arg")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3.0),
        (-2.5, -2.5),
        (True, 1.0),
        (np.float32(0.1), float(np.float32(0.1))),
        (np.int64(-7), -7.0),
        (np.array(4.5), 4.5),
        (np.array([[6.5]]), 6.5),
        ([1.25], 1.25),
        (np.float16(0.5), 0.5),
        (float("inf"), float("inf")),
    ],
)
def test_to_float(value, expected) -> None:
    got = to_float(value)
    assert type(got) is float
    assert got == expected


def test_to_float_nan() -> None:
    assert np.isnan(to_float(np.float32("nan")))


@pytest.mark.parametrize(
    ("value", "exc", "words"),
    [
        ("1.0", TypeError, ["my_arg", "str"]),
        (b"1", TypeError, ["my_arg", "bytes"]),
        ([1.0, 2.0], ValueError, ["my_arg", "(2,)"]),
        (np.zeros((0,)), ValueError, ["my_arg", "(0,)"]),
        (np.array(["a"]), TypeError, ["my_arg", "dtype"]),
        (None, TypeError, ["my_arg"]),
    ],
)
def test_to_float_refuses(value, exc, words) -> None:
    with pytest.raises(exc) as info:
        to_float(value, name="my_arg")
    for word in words:
        assert word in str(info.value)


def test_to_float_big_python_int() -> None:
    assert to_float(2**70) == float(2**70)


# -- PyTorch ------------------------------------------------------------------------------------


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_torch_cpu_tensor(torch) -> None:
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    arr = to_numpy(t)
    assert isinstance(arr, np.ndarray)
    assert arr.dtype == np.float32
    assert arr.shape == (2, 3)
    np.testing.assert_array_equal(arr, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_torch_requires_grad(torch) -> None:
    t = torch.linspace(0, 1, 5, requires_grad=True) * 2
    arr = to_numpy(t)
    np.testing.assert_allclose(arr, np.linspace(0, 2, 5), rtol=1e-6)
    assert to_float(t.sum()) == pytest.approx(5.0)


def test_torch_bfloat16_becomes_float32(torch) -> None:
    t = torch.tensor([1.5, -2.0, 3.0e5], dtype=torch.bfloat16)
    arr = to_numpy(t)
    assert arr.dtype == np.float32
    np.testing.assert_array_equal(arr, t.float().numpy())
    assert to_float(torch.tensor(0.25, dtype=torch.bfloat16)) == 0.25


@pytest.mark.parametrize(
    ("dtype", "np_dtype"),
    [("int64", np.int64), ("int8", np.int8), ("bool", np.bool_), ("float16", np.float16)],
)
def test_torch_dtypes_are_kept(torch, dtype, np_dtype) -> None:
    arr = to_numpy(torch.ones(3, dtype=getattr(torch, dtype)))
    assert arr.dtype == np_dtype
    assert arr.tolist() == np.ones(3, dtype=np_dtype).tolist()


def test_torch_zero_dim(torch) -> None:
    t = torch.tensor(2.5)
    arr = to_numpy(t)
    assert arr.shape == ()
    assert arr.item() == 2.5
    assert to_float(t) == 2.5
    assert to_float(torch.tensor([[3]])) == 3.0


def test_torch_non_contiguous_view(torch) -> None:
    t = torch.arange(12).reshape(3, 4).t()
    np.testing.assert_array_equal(to_numpy(t), np.arange(12).reshape(3, 4).T)


def test_torch_multi_element_to_float_is_refused(torch) -> None:
    with pytest.raises(ValueError, match="scalar_value"):
        to_float(torch.zeros(2), name="scalar_value")


# -- JAX (only when installed) ------------------------------------------------------------------


def test_jax_array() -> None:
    jnp = pytest.importorskip("jax.numpy")
    arr = to_numpy(jnp.arange(4, dtype=jnp.float32))
    assert isinstance(arr, np.ndarray)
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert to_float(jnp.float32(1.5)) == 1.5


def test_jax_bfloat16_becomes_float32() -> None:
    jnp = pytest.importorskip("jax.numpy")
    assert to_float(jnp.array(2.5, dtype=jnp.bfloat16)) == 2.5
    arr = to_numpy(jnp.ones((2, 2), dtype=jnp.bfloat16))
    assert arr.dtype == np.float32 and arr.sum() == 4.0


def test_extension_float_numpy_arrays_become_float32() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    arr = to_numpy(np.array([0.5, 1.0], dtype=ml_dtypes.bfloat16))
    assert arr.dtype == np.float32 and arr.tolist() == [0.5, 1.0]
    assert to_float(np.array(3.0, dtype=ml_dtypes.float8_e4m3fn)) == 3.0
    # Other "V" dtypes (structured records) are left alone, and refused as numbers.
    with pytest.raises(TypeError, match="value"):
        to_float(np.zeros(1, dtype=[("a", "f4")]))


# -- laziness -----------------------------------------------------------------------------------


def test_converting_plain_values_imports_no_framework() -> None:
    code = (
        "import sys, json, tbkit\n"
        "from tbkit._arrays import to_numpy, to_float\n"
        "to_numpy([1, 2, 3]); to_float(2.5); to_numpy(object.__new__(type('A', (), {'__array__': "
        "lambda self, dtype=None, copy=None: __import__('numpy').zeros(1)})))\n"
        "print(json.dumps([m for m in ('torch', 'tensorflow', 'jax') if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == []
