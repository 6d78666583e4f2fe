"""One converter from any framework's values to NumPy.

Python numbers and sequences, NumPy arrays and scalars, PyTorch tensors (any device,
with or without grad), TensorFlow eager tensors and variables, and JAX arrays. No
framework is imported here: a value can only be a framework's tensor if that framework
is already in ``sys.modules``.
"""

from __future__ import annotations

import numbers
import sys
from typing import Any

import numpy as np

# ml_dtypes' extension floats (TensorFlow's and JAX's bfloat16, the float8 kinds ...) are
# NumPy dtypes of kind "V" that NumPy does not count as numbers: they become float32.
_EXTENSION_FLOATS = ("bfloat16", "float8", "float6", "float4")


def _widen(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind == "V" and arr.dtype.name.startswith(_EXTENSION_FLOATS):
        return arr.astype(np.float32)
    return arr


def _from_torch(value: Any) -> np.ndarray | None:
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(value, torch.Tensor):
        return None
    t = value.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


def _from_tensorflow(value: Any) -> np.ndarray | None:
    tf = sys.modules.get("tensorflow")
    if tf is None:
        return None
    if isinstance(value, tf.Tensor | tf.Variable):
        return _widen(np.asarray(value.numpy()))
    return None


def _from_jax(value: Any) -> np.ndarray | None:
    jax = sys.modules.get("jax")
    if jax is None or not isinstance(value, jax.Array):
        return None
    return _widen(np.asarray(value))


_CONVERTERS = (_from_torch, _from_tensorflow, _from_jax)


def to_numpy(value: Any, *, name: str = "value") -> np.ndarray:
    """Convert ``value`` to a NumPy array without copying when it already is one.

    Args:
        value: A Python number or (nested) sequence, NumPy array or scalar, or a
            PyTorch, TensorFlow or JAX tensor.
        name: The argument name to put in the error message.

    Returns:
        The value as a NumPy array.

    Raises:
        TypeError: ``value`` is none of the above.

    Example:
        >>> to_numpy([1, 2]).dtype
        dtype('int64')
    """
    if isinstance(value, np.ndarray):
        return _widen(value) if value.dtype.kind == "V" else value
    if isinstance(value, numbers.Number | np.generic | list | tuple):
        try:
            arr = np.asarray(value)
        except (ValueError, OverflowError) as exc:
            raise TypeError(
                f"{name} must be numeric with a regular shape, got {value!r:.80} ({exc})"
            ) from None
        if arr.dtype == object:
            raise TypeError(f"{name} must be numeric, got a ragged or mixed sequence: {value!r:.80}")
        return _widen(arr)
    for convert in _CONVERTERS:
        arr = convert(value)
        if arr is not None:
            return arr
    if hasattr(value, "__array__"):
        return _widen(np.asarray(value))
    raise TypeError(f"{name} must be a number, sequence or array/tensor, got {type(value).__name__}")


def to_float(value: Any, *, name: str = "value") -> float:
    """Convert a scalar-like ``value`` (a one-element array or tensor too) to a Python float.

    Raises:
        TypeError: ``value`` is not numeric.
        ValueError: ``value`` holds more than one element.

    Example:
        >>> to_float(np.float32(0.5))
        0.5
    """
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r:.80}")
    if isinstance(value, int):  # Python ints (bool too) of any size
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{name} is too large for a float: {value!r:.80}") from None
    arr = to_numpy(value, name=name)
    if arr.size != 1:
        raise ValueError(f"{name} must hold exactly one number, got shape {arr.shape}")
    if np.iscomplexobj(arr) or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be a real number, got dtype {arr.dtype}")
    return float(arr.reshape(()))
