"""The DataProvider's series value types: frozen dataclasses, re-exported by :mod:`tbkit.provider`.

Series types (``Run``, ``ScalarDatum`` ...) mirror TensorBoard's ``data/provider.py``;
:class:`Series` and :class:`SeriesInfo` are what a :class:`~tbkit.provider.SeriesProvider`
holds and lists. A leaf of the provider package: it imports nothing of tbkit but
:mod:`tbkit.errors`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tbkit.errors import InvalidArgumentError


class DataClass(enum.Enum):
    """How a time series' values are shaped (TensorBoard's ``DataClass``)."""

    SCALAR = "scalar"
    TENSOR = "tensor"
    BLOB_SEQUENCE = "blob_sequence"


@dataclass(frozen=True)
class Run:
    """A run: ``run_id`` and ``run_name`` are its path relative to the logdir."""

    run_id: str
    run_name: str
    start_time: float | None


@dataclass(frozen=True)
class ScalarTimeSeries:
    """Metadata of one scalar series."""

    max_step: int
    max_wall_time: float
    plugin_content: bytes
    description: str
    display_name: str
    last_value: float


@dataclass(frozen=True)
class TensorTimeSeries:
    """Metadata of one tensor series."""

    max_step: int
    max_wall_time: float
    plugin_content: bytes
    description: str
    display_name: str


@dataclass(frozen=True)
class BlobSequenceTimeSeries:
    """Metadata of one blob-sequence series; ``max_length`` is its longest sequence."""

    max_step: int
    max_wall_time: float
    max_length: int
    plugin_content: bytes
    description: str
    display_name: str


@dataclass(frozen=True)
class ScalarDatum:
    """One scalar point."""

    step: int
    wall_time: float
    value: float


@dataclass(frozen=True, eq=False)
class TensorDatum:
    """One tensor point; equality compares the arrays element-wise (NaN equal to NaN)."""

    step: int
    wall_time: float
    numpy: np.ndarray

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorDatum):
            return NotImplemented
        a, b = self.numpy, other.numpy
        same_array = (
            a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        )
        return self.step == other.step and self.wall_time == other.wall_time and same_array

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class BlobReference:
    """A reference to one blob; ``blob_key`` is URL-safe and opaque, read it with ``read_blob``."""

    blob_key: str
    url: str | None = None


@dataclass(frozen=True)
class BlobSequenceDatum:
    """One blob-sequence point.

    ``labels``, when the kind has them (audio clips' Markdown labels), holds one text per
    blob; None otherwise.
    """

    step: int
    wall_time: float
    values: tuple[BlobReference, ...]
    labels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class RunTagFilter:
    """Which runs and tags a query covers; ``None`` means all.

    Example:
        >>> RunTagFilter(runs=["train"]).matches("train", "loss")
        True
    """

    runs: frozenset[str] | None = None
    tags: frozenset[str] | None = None

    def __init__(self, runs: Iterable[str] | None = None, tags: Iterable[str] | None = None) -> None:
        for name, given in (("runs", runs), ("tags", tags)):
            if isinstance(given, str):
                raise InvalidArgumentError(f"RunTagFilter {name} must be a collection of names, not a string")
            object.__setattr__(self, name, None if given is None else frozenset(given))

    def matches(self, run: str, tag: str) -> bool:
        """True when ``run`` and ``tag`` both pass the filter."""
        return (self.runs is None or run in self.runs) and (self.tags is None or tag in self.tags)


# -- files of file-based plugins -------------------------------------------------------------


@dataclass(frozen=True)
class PluginFile:
    """A file a file-based plugin (``projector``, ``profile``) reads, relative to its run."""

    run: str
    path: str
    size: int


# -- series as a SeriesProvider holds them -----------------------------------------------------

Keep = Callable[[str, str], bool]  # (run, tag) -> whether a series is wanted

ScalarColumns = tuple[np.ndarray, np.ndarray, np.ndarray]
"""One scalar series at full resolution: steps (int64), wall times and values (float64)."""

TensorColumns = tuple[bytes, np.ndarray, np.ndarray, list[np.ndarray]]
"""One tensor series at full resolution: plugin content, steps (int64), wall times (float64),
then one array per point."""

BlobColumns = tuple[bytes, np.ndarray, np.ndarray, list[list[bytes]], list[list[str]] | None]
"""One blob-sequence series at full resolution: plugin content, steps (int64), wall times
(float64), the blobs of each point, and each point's blob labels (None when the kind has none)."""


@dataclass(frozen=True, eq=False)
class Series:
    """One time series as a :class:`~tbkit.provider.SeriesProvider` sees it.

    ``values`` holds floats (scalars), arrays (tensors) or sequences of ``bytes`` (blob
    sequences), aligned with ``steps`` and ``wall_times``; ``labels``, for blob sequences
    whose kind labels its blobs (audio), one sequence of texts per point.
    """

    run: str
    tag: str
    plugin_name: str
    data_class: DataClass
    steps: np.ndarray
    wall_times: np.ndarray
    values: Sequence[Any]
    plugin_content: bytes = b""
    display_name: str = ""
    description: str = ""
    labels: Sequence[Sequence[str]] | None = None


@dataclass(frozen=True)
class SeriesInfo:
    """What listings need to know of a :class:`Series`, without its points.

    ``max_length`` is the most blobs at one step (blob sequences; 0 otherwise).
    """

    run: str
    tag: str
    plugin_name: str
    data_class: DataClass
    count: int
    max_step: int
    max_wall_time: float
    last: tuple[int, float, Any]  # step, wall time, value of the last point
    max_length: int = 0
    plugin_content: bytes = b""
    display_name: str = ""
    description: str = ""

    @classmethod
    def of(cls, s: Series) -> SeriesInfo:
        """The info of a non-empty series."""
        longest = max(map(len, s.values)) if s.data_class is DataClass.BLOB_SEQUENCE else 0
        return cls(
            s.run,
            s.tag,
            s.plugin_name,
            s.data_class,
            len(s.steps),
            int(np.max(s.steps)),
            float(np.max(s.wall_times)),
            (int(s.steps[-1]), float(s.wall_times[-1]), s.values[-1]),
            longest,
            s.plugin_content,
            s.display_name,
            s.description,
        )
