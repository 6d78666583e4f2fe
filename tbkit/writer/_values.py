"""Validation of the arguments every ``add_*`` call shares: tag, step and wall time."""

from __future__ import annotations

import operator
import time
from typing import Any

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
    """``global_step`` as an int64: None is 0; ints, NumPy ints and 0-d int tensors are accepted."""
    if step is None:
        return 0
    if isinstance(step, bool):
        raise TypeError(f"global_step must be an int, got bool {step!r}")
    try:
        value = operator.index(step)
    except TypeError:
        if isinstance(step, float) and step.is_integer():
            value = int(step)
        else:
            raise TypeError(f"global_step must be an int, got {type(step).__name__} {step!r:.80}") from None
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"global_step must fit in a signed 64-bit integer, got {value}")
    return value


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
