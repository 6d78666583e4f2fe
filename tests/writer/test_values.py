"""tbkit.writer._values: scalar_float's per-type converters agree with to_float, errors included."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tbkit._arrays import to_float
from tbkit.writer import _values
from tbkit.writer._values import scalar_float

NUMPY_TYPES = [np.bool_, np.float16, np.float32, np.float64, np.longdouble, np.int8, np.int16, np.int32]
NUMPY_TYPES += [np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
TORCH_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
TORCH_DTYPES += [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _same(a: float, b: float) -> bool:
    return type(a) is float and type(b) is float and (a == b or (math.isnan(a) and math.isnan(b)))


@pytest.mark.parametrize("kind", NUMPY_TYPES)
def test_numpy_scalars(kind: type) -> None:
    for raw in [0, 1, 3, 100, 0.1, -2.5, 1e30, np.inf, np.nan]:
        with np.errstate(all="ignore"):
            try:
                value = kind(raw)
            except (OverflowError, ValueError):
                continue
        assert _same(scalar_float(value, name="v"), to_float(value, name="v")), (kind, raw)


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_one_element_tensors(dtype: torch.dtype) -> None:
    for raw in [0, 1, 7, -3, 0.1, 1e30, 2.0**-20, float("inf"), float("nan")]:
        for shape in [(), (1,), (1, 1)]:
            try:
                value = torch.full(shape, raw, dtype=dtype)
            except RuntimeError:  # nan, inf or negatives in integer dtypes
                continue
            assert _same(scalar_float(value, name="v"), to_float(value, name="v")), (dtype, raw, shape)


def test_tensors_with_grad_and_parameters() -> None:
    weight = torch.nn.Parameter(torch.tensor(0.3))
    loss = (weight * 2) ** 2
    assert scalar_float(loss, name="v") == to_float(loss, name="v")
    assert scalar_float(weight, name="v") == to_float(weight, name="v")
    assert _values._converters[type(weight)] is _values._torch_tensor


def test_python_numbers() -> None:
    for value in [True, False, 0, -5, 2**62, 2**80, 0.1, -0.0, math.inf]:
        assert _same(scalar_float(value, name="v"), to_float(value, name="v"))
    assert scalar_float("0.5", name="v") == 0.5


@pytest.mark.parametrize(
    "value, error",
    [
        (torch.zeros(2), ValueError),
        (torch.zeros(0), ValueError),
        (torch.tensor(1 + 2j), TypeError),
        (np.complex64(1), TypeError),
        (np.zeros(3), ValueError),
        (10**400, ValueError),
        ("abc", ValueError),
        (b"1", TypeError),
        (None, TypeError),
        (object(), TypeError),
    ],
)
def test_errors_are_to_floats(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="scalar_value"):
        scalar_float(value, name="scalar_value")
    if not isinstance(value, str):
        with pytest.raises(error):
            to_float(value, name="scalar_value")


def test_a_type_seen_again_uses_its_remembered_converter() -> None:
    class Number(float):
        pass

    assert scalar_float(Number(2.5), name="v") == 2.5
    assert _values._converters[Number] is _values._general
    assert scalar_float(Number(3.5), name="v") == 3.5
