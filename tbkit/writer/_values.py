"""Validation of the arguments every ``add_*`` call shares: tag, step and wall time."""

from __future__ import annotations

import math
import operator
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tbkit._arrays import to_float

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def check_tag(tag: Any, name: str = "tag") -> str:
    """Return ``tag`` if it is a non-empty string; raise TypeError/ValueError otherwise."""
    if type(tag) is not str:
        if isinstance(tag, str):
            return str(tag)
        raise TypeError(f"{name} must be a str, got {type(tag).__name__} {tag!r:.80}")
    if not tag:
        raise ValueError(f"{name} must not be empty")
    return tag


def check_step(step: Any) -> int:
    """``global_step`` as an int64: None is 0.

    Ints, NumPy ints and one-element int tensors are taken as they are; floats (and float
    arrays or tensors of one element) are truncated to an int, as torch's ``int(global_step)``.
    """
    if step is None:
        return 0
    if isinstance(step, bool):
        raise TypeError(f"global_step must be an int, got bool {step!r}")
    try:
        value = operator.index(step)
    except TypeError:
        value = _truncated(step)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"global_step must fit in a signed 64-bit integer, got {value}")
    return value


def _truncated(step: Any) -> int:
    """A float-like ``global_step`` as torch's ``int(global_step)``; TypeError for anything else."""
    if isinstance(step, str | bytes):
        raise TypeError(f"global_step must be a number, got {type(step).__name__} {step!r:.80}")
    try:
        number = to_float(step, name="global_step")
    except (TypeError, ValueError):
        raise TypeError(f"global_step must be an int, got {type(step).__name__} {step!r:.80}") from None
    if not math.isfinite(number):
        raise ValueError(f"global_step must be finite, got {number}")
    return int(number)


def check_walltime(walltime: Any) -> float:
    """``walltime`` in seconds since the epoch; None means now."""
    if walltime is None:
        return time.time()
    if isinstance(walltime, bool) or not isinstance(walltime, int | float):
        try:
            return float(walltime)
        except (TypeError, ValueError):
            raise TypeError(f"walltime must be a number of seconds, got {type(walltime).__name__}") from None
    return float(walltime)


def scalar_float(value: Any, *, name: str) -> float:
    """A scalar value as a float: what ``to_float`` takes, and numeric strings, as torch takes them.

    The types ``add_scalar`` meets in training loops (Python and NumPy numbers, one-element
    PyTorch tensors) go through a converter found once per type (:func:`_converter`); the
    others, and every error, through ``to_float``, with the same result.

    Example:
        >>> scalar_float("0.5", name="scalar_value")
        0.5
    """
    convert = _converters.get(type(value))
    if convert is None:
        convert = _converter(type(value))
    number = convert(value)
    if number is not None:
        return number
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"{name} must be a number or a numeric string, got {value!r:.80}") from None
    return to_float(value, name=name)


def _general(value: Any) -> None:
    """The converter of the types without a fast one: ``to_float`` decides."""
    return None


def _exact(value: Any) -> float:
    """Python floats and bools, and NumPy's real scalars: ``float()`` is ``to_float``."""
    return float(value)


def _python_int(value: int) -> float | None:
    try:
        return float(value)
    except OverflowError:  # too large for a float: to_float says so
        return None


def _torch_tensor(value: Any) -> float | None:
    """A one-element real tensor by ``.item()``, without ``to_float``'s copy to NumPy.

    ``.item()`` gives the exact value of every real dtype (bfloat16 and float16 too) as a
    Python float, int or bool, which ``float()`` converts as ``to_float`` does; a complex
    value, or a tensor of several elements, goes to ``to_float``, which says why not.
    """
    try:
        item = value.item()
    except (RuntimeError, ValueError):
        return None
    kind = type(item)
    if kind is float:
        return item  # type: ignore[no-any-return]
    return float(item) if kind is int or kind is bool else None


_NUMPY_REAL = (np.bool_, np.float16, np.float32, np.float64, np.longdouble)
_NUMPY_INT = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
_converters: dict[type, Callable[[Any], float | None]] = {
    float: _exact,
    bool: _exact,
    int: _python_int,
    **{kind: _exact for kind in (*_NUMPY_REAL, *_NUMPY_INT)},
}


def _converter(kind: type) -> Callable[[Any], float | None]:
    """Find and remember the converter of values of type ``kind``.

    A tensor type can only exist once torch is imported, so a type seen before that is
    no tensor type and stays general.
    """
    convert: Callable[[Any], float | None] = _general
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(kind, torch.Tensor):
        convert = _torch_tensor
    _converters[kind] = convert
    return convert
