"""Declared hyperparameters and metrics, for the hparams experiment summary.

Example:
    >>> from tbkit.hparams import HParam, Interval, Metric
    >>> lr = HParam("lr", Interval(1e-4, 1e-1))
    >>> acc = Metric("accuracy", group="validation")
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Interval:
    """A real interval ``[min_value, max_value]`` as a hyperparameter's domain."""

    min_value: float
    max_value: float

    def __post_init__(self) -> None:
        if not self.min_value <= self.max_value:
            raise ValueError(f"Interval needs min_value <= max_value, got {self.min_value}, {self.max_value}")


@dataclass(frozen=True)
class Discrete:
    """A finite set of values (all bool, all numbers, or all str) as a hyperparameter's domain."""

    values: tuple[bool | int | float | str, ...]

    def __init__(self, values: object) -> None:
        items = tuple(values)  # type: ignore[call-overload]
        if not items:
            raise ValueError("Discrete needs at least one value")
        kinds = {_kind(v) for v in items}
        if len(kinds) != 1:
            raise ValueError(f"Discrete values must all be bool, all numbers or all str, got {items!r}")
        object.__setattr__(self, "values", items)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "str"
    raise TypeError(f"a hyperparameter value must be bool, int, float or str, got {type(value).__name__}")


@dataclass(frozen=True)
class HParam:
    """A declared hyperparameter: its name, optional domain, display name and description."""

    name: str
    domain: Interval | Discrete | None = None
    display_name: str = ""
    description: str = ""


class DatasetType(enum.Enum):
    """Which data a metric was computed on."""

    UNKNOWN = 0
    TRAINING = 1
    VALIDATION = 2


@dataclass(frozen=True)
class Metric:
    """A declared metric: a scalar tag, optionally in a group (a sub-run such as ``validation``)."""

    tag: str
    group: str = ""
    display_name: str = ""
    description: str = ""
    dataset_type: DatasetType = field(default=DatasetType.UNKNOWN)


class Status(enum.Enum):
    """How a training session ended."""

    UNKNOWN = 0
    SUCCESS = 1
    FAILURE = 2
    RUNNING = 3
