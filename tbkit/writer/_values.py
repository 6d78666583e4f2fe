"""Validation of the arguments every ``add_*`` call shares: tag, step and wall time."""

from __future__ import annotations

import math
import operator
import time
from typing import Any

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

    Example:
        >>> scalar_float("0.5", name="scalar_value")
        0.5
    """
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"{name} must be a number or a numeric string, got {value!r:.80}") from None
    return to_float(value, name=name)
