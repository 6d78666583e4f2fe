"""The DataProvider's hparams value types: frozen dataclasses, re-exported by :mod:`tbkit.provider`.

They describe what the hparams dashboard needs (see
:meth:`tbkit.provider.DataProvider.list_hyperparameters`). A leaf of the provider package:
it imports nothing of tbkit but :mod:`tbkit.errors`.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tbkit.errors import InvalidArgumentError

HParamValue = bool | float | str
"""A hyperparameter value as TensorBoard stores it: numbers are float64."""


class HParamDomainType(enum.Enum):
    """How a hyperparameter's known values are described (TensorBoard's ``HyperparameterDomainType``)."""

    INTERVAL = "interval"
    DISCRETE_FLOAT = "discrete_float"
    DISCRETE_STRING = "discrete_string"
    DISCRETE_BOOL = "discrete_bool"


class SessionStatus(enum.Enum):
    """How a training session ended (``unknown`` while no end was recorded)."""

    UNKNOWN = "unknown"
    SUCCESS = "success"
    FAILURE = "failure"
    RUNNING = "running"


@dataclass(frozen=True)
class Hyperparameter:
    """A hyperparameter of the experiment and the values it takes.

    ``domain`` is ``(min, max)`` for an ``INTERVAL``, else the tuple of known values;
    ``differs`` is True when the sessions hold two or more distinct values.
    """

    name: str
    display_name: str = ""
    description: str = ""
    domain_type: HParamDomainType | None = None
    domain: tuple[Any, ...] | None = None
    differs: bool = False


@dataclass(frozen=True)
class HParamMetric:
    """A metric: the scalar ``tag`` in a session's run, or in its sub-run ``<session>/<group>``."""

    tag: str
    group: str = ""
    display_name: str = ""
    description: str = ""
    dataset_type: str = "unknown"

    @property
    def name(self) -> str:
        """``group/tag``, or ``tag`` without a group (the metric's column name in frames)."""
        return f"{self.group}/{self.tag}" if self.group else self.tag

    def run_of(self, session: str) -> str:
        """The run holding this metric's scalars for ``session``.

        Example:
            >>> HParamMetric("loss", "validation").run_of(".")
            'validation'
        """
        group = self.group.strip("/")
        if not group or group == ".":
            return session
        return group if session in (".", "") else f"{session}/{group}"


@dataclass(frozen=True)
class HParamsExperiment:
    """The experiment: its hyperparameters (with domains) and metrics.

    ``declared`` is True when it comes from ``_hparams_/experiment`` summaries, False when
    it was inferred from the sessions' values and the scalars of their runs.
    """

    hyperparameters: tuple[Hyperparameter, ...] = ()
    metrics: tuple[HParamMetric, ...] = ()
    name: str = ""
    description: str = ""
    user: str = ""
    time_created_secs: float = 0.0
    declared: bool = False


@dataclass(frozen=True)
class MetricValue:
    """A metric's value in a session: the last scalar written (or a group's mean over sessions)."""

    tag: str
    group: str
    value: float
    step: int
    wall_time: float


@dataclass(frozen=True)
class HParamsSession:
    """One session: a run with a ``_hparams_/session_start_info`` summary."""

    run: str
    group: str
    hparams: Mapping[str, HParamValue]
    status: SessionStatus = SessionStatus.UNKNOWN
    start_time_secs: float | None = None
    end_time_secs: float | None = None
    model_uri: str = ""
    monitor_url: str = ""
    metrics: tuple[MetricValue, ...] = ()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class HParamsSessionGroup:
    """Sessions sharing a group name (the same hyperparameter values).

    ``metrics`` holds, per metric, the mean of the sessions' values (and of their steps and
    wall times), TensorBoard's default aggregation.
    """

    name: str
    hparams: Mapping[str, HParamValue]
    sessions: tuple[HParamsSession, ...]
    metrics: tuple[MetricValue, ...] = ()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class HParamFilter:
    """Keep session groups whose value of ``name`` (a hyperparameter or a metric's ``group/tag``)
    matches: give exactly one of ``regex`` (fully matched against the value as text),
    ``interval`` (``(min, max)``, inclusive) or ``values`` (a collection). A group without
    the value never matches.

    Example:
        >>> HParamFilter("lr", interval=(0.0, 0.1)).matches(0.01)
        True
    """

    name: str
    regex: str | None = None
    interval: tuple[float, float] | None = None
    values: frozenset[Any] | None = None
    _pattern: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given = [x is not None for x in (self.regex, self.interval, self.values)]
        if sum(given) != 1:
            raise InvalidArgumentError(
                f"HParamFilter({self.name!r}) needs exactly one of regex, interval, values"
            )
        if self.values is not None:
            object.__setattr__(self, "values", frozenset(self.values))
        if self.interval is not None:
            lo, hi = self.interval
            object.__setattr__(self, "interval", (float(lo), float(hi)))
        if self.regex is not None:
            try:
                object.__setattr__(self, "_pattern", re.compile(self.regex))
            except re.error as exc:
                raise InvalidArgumentError(f"HParamFilter regex {self.regex!r} is invalid: {exc}") from exc

    def matches(self, value: Any) -> bool:
        """Whether ``value`` (None when missing) passes the filter."""
        if value is None:
            return False
        if self._pattern is not None:
            return self._pattern.fullmatch(str(value)) is not None
        if self.interval is not None:
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
                return False
            return self.interval[0] <= value <= self.interval[1]
        return value in self.values  # type: ignore[operator]


@dataclass(frozen=True)
class HParamSort:
    """Sort session groups by ``name`` (a hyperparameter or a metric's ``group/tag``); missing last."""

    name: str
    descending: bool = False
