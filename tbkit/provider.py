"""The DataProvider: the one door between stored data and its consumers (frames, server).

A low layer: it imports nothing of tbkit but :mod:`tbkit.errors` and :mod:`tbkit.proto`,
so plugin routes and the server can depend on the interface without importing the reader.
It holds

* the value types (frozen dataclasses, defined in :mod:`tbkit._provider_types`) and
  :class:`RunTagFilter`;
* :class:`DataProvider`, the abstract interface (TensorBoard's method set, with the
  plugin name as the one positional argument and everything else keyword-only);
* :class:`Series` and :class:`SeriesInfo` (a series without its points, for listings);
* :class:`SeriesProvider`, the whole interface implemented over a flat list of
  :class:`Series` (downsampling, filtering, blob keys), which concrete providers fill
  (defined in :mod:`tbkit._provider_series`);
* :class:`InMemoryProvider`, a provider built from a dict, the test double (defined in
  :mod:`tbkit._provider_memory`);
* :func:`downsample_indices`, the deterministic sampling every provider uses.

Example:
    >>> p = InMemoryProvider({"train": {"loss": {"plugin": "scalars", "points": [(0, 1.0, 0.5)]}}})
    >>> p.read_scalars("scalars")["train"]["loss"][0].value
    0.5
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tbkit import _provider_hparams
from tbkit._provider_types import (
    BlobReference,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    DataClass,
    HParamDomainType,
    HParamFilter,
    HParamMetric,
    HParamsExperiment,
    HParamSort,
    HParamsSession,
    HParamsSessionGroup,
    HParamValue,
    Hyperparameter,
    MetricValue,
    PluginFile,
    Run,
    RunTagFilter,
    ScalarDatum,
    ScalarTimeSeries,
    SessionStatus,
    TensorDatum,
    TensorTimeSeries,
)
from tbkit.errors import InvalidArgumentError, NotFoundError

FILE_BASED_PLUGINS = ("projector", "profile")  # plugins that read files (list_plugin_files), not series

__all__ = [
    "FILE_BASED_PLUGINS",
    "BlobReference",
    "BlobSequenceDatum",
    "BlobSequenceTimeSeries",
    "DataClass",
    "DataProvider",
    "HParamDomainType",
    "HParamFilter",
    "HParamMetric",
    "HParamSort",
    "HParamValue",
    "HParamsExperiment",
    "HParamsSession",
    "HParamsSessionGroup",
    "Hyperparameter",
    "InMemoryProvider",
    "MetricValue",
    "PluginFile",
    "Run",
    "RunTagFilter",
    "ScalarDatum",
    "ScalarTimeSeries",
    "Series",
    "SeriesInfo",
    "SeriesProvider",
    "SessionStatus",
    "TensorDatum",
    "TensorTimeSeries",
    "downsample_indices",
]


def downsample_indices(steps: np.ndarray, k: int | None) -> np.ndarray:
    """Indices (increasing) of at most ``k`` points of a series, always keeping the last.

    The others are chosen by a hash of their step (the ``k - 1`` smallest hashes): the
    choice is deterministic, spread uniformly over the series, and two series of one
    run with the same steps keep the same steps.

    Example:
        >>> downsample_indices(np.arange(10), 3).tolist()[-1]
        9
    """
    n = len(steps)
    if k is None or k >= n:
        return np.arange(n)
    if k < 0:
        raise InvalidArgumentError(f"downsample must be non-negative, got {k}")
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    x = np.asarray(steps[:-1], dtype=np.int64).view(np.uint64).copy()  # splitmix64
    x += np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    chosen = np.argsort(x, kind="stable")[: k - 1] if k > 1 else np.zeros(0, dtype=np.int64)
    return np.append(np.sort(chosen), n - 1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Series:
    """One time series as a :class:`SeriesProvider` sees it.

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


Keep = Callable[[str, str], bool]  # (run, tag) -> whether a series is wanted


class DataProvider(abc.ABC):
    """Reads scalar, tensor and blob-sequence time series, by plugin, run and tag.

    Every method takes at most one positional argument; the rest are keyword-only.
    Results are nested dicts ``d[run][tag]`` holding only series that exist.
    ``downsample=N`` keeps at most ``N`` points per series, always the latest one,
    deterministically (see :func:`downsample_indices`); ``None`` keeps all.
    """

    def data_location(self) -> str:
        """A human-readable description of where the data come from."""
        return ""

    def data_locations(self) -> list[tuple[str, str]]:
        """Where the data come from, as ``(name, location)`` pairs (a name may be ``""``).

        The default is :meth:`data_location` unnamed (nothing when it is empty); a
        provider over several named logdirs lists each.
        """
        location = self.data_location()
        return [("", location)] if location else []

    @abc.abstractmethod
    def list_plugins(self) -> list[str]:
        """Names of the plugins that own at least one series (or, file-based, one plugin file)."""

    @abc.abstractmethod
    def list_runs(self) -> list[Run]:
        """Every run, sorted by name."""

    @abc.abstractmethod
    def list_scalars(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, ScalarTimeSeries]]:
        """Metadata of the scalar series of ``plugin_name``."""

    @abc.abstractmethod
    def read_scalars(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[ScalarDatum]]]:
        """Points of the scalar series of ``plugin_name``, in the order written."""

    @abc.abstractmethod
    def read_last_scalars(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, ScalarDatum]]:
        """The last point written of each scalar series of ``plugin_name``."""

    def read_scalar_extremes(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, tuple[float | None, float | None, int]]]:
        """``(min, max, count)`` of each full scalar series: the extremes of its finite values
        (None when it has none) over every point written, and its number of points.

        Example:
            >>> provider = InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 3.0), (1, 1.0, -1.0)]}}})
            >>> provider.read_scalar_extremes("scalars")
            {'r': {'t': (-1.0, 3.0, 2)}}
        """
        full = self.read_scalars(plugin_name, run_tag_filter=run_tag_filter)
        return {
            run: {
                tag: _extremes(np.array([p.value for p in points], dtype=np.float64))
                for tag, points in tags.items()
            }
            for run, tags in full.items()
        }

    @abc.abstractmethod
    def list_tensors(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, TensorTimeSeries]]:
        """Metadata of the tensor series of ``plugin_name``."""

    @abc.abstractmethod
    def read_tensors(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[TensorDatum]]]:
        """Points of the tensor series of ``plugin_name``."""

    @abc.abstractmethod
    def list_blob_sequences(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, BlobSequenceTimeSeries]]:
        """Metadata of the blob-sequence series of ``plugin_name``."""

    @abc.abstractmethod
    def read_blob_sequences(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[BlobSequenceDatum]]]:
        """Points of the blob-sequence series of ``plugin_name``, as blob references."""

    @abc.abstractmethod
    def read_blob(self, blob_key: str) -> bytes:
        """The bytes of one blob. Raises NotFoundError for an unknown key."""

    # -- hparams: computed from the ``hparams`` plugin's series and the scalars ------------

    def list_hyperparameters(self, *, limit: int | None = None) -> HParamsExperiment:
        """The hparams experiment: hyperparameters with domains, and metrics.

        Taken from ``_hparams_/experiment`` summaries (merged over runs), else inferred
        from the sessions' values and the scalars of their runs (see
        :mod:`tbkit._provider_hparams`). Hyperparameters come with differing ones first,
        then by name; ``limit`` keeps that many (None or 0: all).

        Example:
            >>> InMemoryProvider({}).list_hyperparameters().hyperparameters
            ()
        """
        return _provider_hparams.list_hyperparameters(self, limit=limit)

    def read_hyperparameters(
        self,
        *,
        filters: Iterable[HParamFilter] | None = None,
        sort: Sequence[HParamSort] | None = None,
        hparams_to_include: Collection[str] | None = None,
        statuses: Iterable[SessionStatus | str] | None = None,
    ) -> list[HParamsSessionGroup]:
        """The session groups: each group's hyperparameter values, sessions and metric values.

        A session is a run with a ``_hparams_/session_start_info`` summary; its metric
        values are the last scalars of the metrics' tags in its run or ``<run>/<group>``
        sub-runs; its status comes from ``_hparams_/session_end_info``. Groups are sorted
        by name, then by ``sort`` (missing values last).

        Args:
            filters: Keep groups whose value passes every :class:`HParamFilter`.
            sort: :class:`HParamSort` keys on hyperparameters or metrics (``group/tag``).
            hparams_to_include: Only these hyperparameters in each group (plus those
                filtered or sorted on); None keeps all.
            statuses: Only sessions of these statuses (``"success"``, ...).
        """
        return _provider_hparams.read_hyperparameters(
            self, filters=filters, sort=sort, hparams_to_include=hparams_to_include, statuses=statuses
        )

    # -- file-based plugins (projector, profile): files, not series --------------------------

    def list_plugin_files(
        self, plugin_name: str, *, runs: Iterable[str] | None = None
    ) -> dict[str, list[PluginFile]]:
        """``{run: [files]}`` that the file-based plugin ``plugin_name`` reads (none by default).

        ``projector``: each run's ``projector_config.pbtxt`` and the tensor, metadata,
        sprite and bookmark files it names; ``profile``: the trace files.
        """
        return {}

    def read_plugin_file(self, plugin_name: str, *, run: str, path: str) -> bytes:
        """The bytes of a file listed by :meth:`list_plugin_files`; NotFoundError for any other."""
        raise NotFoundError(f"no {plugin_name} file {path!r} in run {run!r}")


def _extremes(values: np.ndarray) -> tuple[float | None, float | None, int]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None, None, int(values.size)
    return float(finite.min()), float(finite.max()), int(values.size)


# The generic implementation over a list of series, and the in-memory double, live in their
# own modules; they are part of this module's public surface.
from tbkit._provider_memory import InMemoryProvider  # noqa: E402
from tbkit._provider_series import SeriesProvider  # noqa: E402
