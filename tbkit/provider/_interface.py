"""The abstract :class:`DataProvider`: the one door between stored data and its consumers.

TensorBoard's method set, with the plugin name as the one positional argument and
everything else keyword-only, plus what tbkit's consumers need beyond it: a column read of
scalars (:meth:`~DataProvider.read_scalar_columns`), per-series listings
(:meth:`~DataProvider.series_info`), scalar extremes, hparams queries, the files of
file-based plugins, and :meth:`~DataProvider.reload` / :attr:`~DataProvider.generation`
for live data. Everything beyond TensorBoard's set has a default built on the abstract
methods, so a provider implementing those alone works with every consumer.

Imports only the provider's value types, its defaults (:mod:`._defaults`) and
:mod:`tbkit.errors`, at any depth: the hparams queries are computed by the hparams kind,
which installs them when it is imported (:func:`~tbkit.provider.set_hparams_queries`);
the provider never imports a kind.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np

from tbkit.errors import NotFoundError
from tbkit.provider._defaults import blob_columns, scalar_columns, series_infos, tensor_columns
from tbkit.provider._hparam_types import (
    HParamFilter,
    HParamsExperiment,
    HParamSort,
    HParamsSessionGroup,
    SessionStatus,
)
from tbkit.provider._hparams_hook import hparams_queries
from tbkit.provider._sampling import extremes
from tbkit.provider._types import (
    BlobColumns,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    DataClass,
    Keep,
    PluginFile,
    Run,
    RunTagFilter,
    ScalarColumns,
    ScalarDatum,
    ScalarTimeSeries,
    SeriesInfo,
    TensorColumns,
    TensorDatum,
    TensorTimeSeries,
)

__all__ = ["DataProvider"]


class DataProvider(abc.ABC):
    """Reads scalar, tensor and blob-sequence time series, by plugin, run and tag.

    Every method takes at most one positional argument; the rest are keyword-only.
    Results are nested dicts ``d[run][tag]`` holding only series that exist.
    ``downsample=N`` keeps at most ``N`` points per series, always the latest one,
    deterministically (see :func:`~tbkit.provider.downsample_indices`); ``None`` keeps all.
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

    # -- live data ---------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """A number that changes whenever the data changed (the default, 0: data that never change)."""
        return 0

    def reload(self, progress: Callable[[], None] | None = None) -> int:
        """Read what is new at the data's source; returns :attr:`generation` afterwards.

        ``progress``, if given, may be called whenever something changed during a long
        reload (so that clients see runs appear while a first load goes on). The default,
        for providers whose data never change, does nothing.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> InMemoryProvider({}).reload()
            0
        """
        return self.generation

    def set_give_way(self, give_way: Callable[[], None] | None) -> None:
        """Let a long reload give way to the requests being answered (the server calls this).

        A provider whose :meth:`reload` works in steps (a window of records at a time) may
        call ``give_way()`` before each step: it returns at once when no request is in
        flight, otherwise when they are done or after a bounded wait, so that a page opened
        during a long first load is answered as quickly as on loaded data. None stops it.
        The default, for providers whose reload is quick or absent, ignores it.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> InMemoryProvider({}).set_give_way(lambda: None)
        """
        del give_way  # nothing here works in steps

    # -- TensorBoard's method set ------------------------------------------------------------

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

    # -- beyond TensorBoard's set: defaults over the methods above ---------------------------

    def read_scalar_extremes(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, tuple[float | None, float | None, int]]]:
        """``(min, max, count)`` of each full scalar series: the extremes of its finite values
        (None when it has none) over every point written, and its number of points.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> provider = InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 3.0), (1, 1.0, -1.0)]}}})
            >>> provider.read_scalar_extremes("scalars")
            {'r': {'t': (-1.0, 3.0, 2)}}
        """
        full = self.read_scalars(plugin_name, run_tag_filter=run_tag_filter)
        return {
            run: {
                tag: extremes(np.array([p.value for p in points], dtype=np.float64))
                for tag, points in tags.items()
            }
            for run, tags in full.items()
        }

    def read_scalar_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, ScalarColumns]]:
        """Every non-empty scalar series ``keep(run, tag)`` accepts, at full resolution, as columns.

        Each series is ``(steps, wall_times, values)``: int64, float64 and float64 arrays in
        the order written (what the scalar charts and downloads compute on). The default
        lists the series, then reads those kept through :meth:`read_scalars`; a provider
        holding NumPy series answers without building a point object each.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> provider = InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 3.0), (1, 1.0, -1.0)]}}})
            >>> provider.read_scalar_columns("scalars")["r"]["t"][2].tolist()
            [3.0, -1.0]
        """
        return scalar_columns(self, plugin_name, keep)

    def read_tensor_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, TensorColumns]]:
        """Every non-empty tensor series of ``plugin_name`` that ``keep(run, tag)`` accepts, at
        full resolution: ``(plugin_content, steps, wall_times, values)`` (int64 and float64
        arrays, one array per point, in the order written). The default lists the series,
        then reads those kept through :meth:`read_tensors`; a provider holding NumPy series
        answers without building a point object each (frames of whole kinds read this way).

        Example:
            >>> import numpy as np
            >>> from tbkit.provider import InMemoryProvider
            >>> data = {"r": {"t": {"plugin": "p", "points": [(2, 0.5, np.ones(2))]}}}
            >>> InMemoryProvider(data).read_tensor_columns("p")["r"]["t"][1].tolist()
            [2]
        """
        return tensor_columns(self, plugin_name, keep)

    def read_blob_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, BlobColumns]]:
        """Every non-empty blob-sequence series of ``plugin_name`` that ``keep(run, tag)``
        accepts, at full resolution: ``(plugin_content, steps, wall_times, blobs, labels)``
        (int64 and float64 arrays; per point, its blobs' bytes and, for a kind that labels
        its blobs, their labels, else None), in the order written. The default reads every
        blob through :meth:`read_blob`; a provider holding the blobs answers at once.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> points = [(2, 0.5, [b"x", b"y"])]
            >>> data = {"r": {"t": {"plugin": "p", "data_class": "blob_sequence", "points": points}}}
            >>> InMemoryProvider(data).read_blob_columns("p")["r"]["t"][3]
            [[b'x', b'y']]
        """
        return blob_columns(self, plugin_name, keep)

    def series_info(
        self, data_class: DataClass | None = None, *, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[SeriesInfo]:
        """A :class:`~tbkit.provider.SeriesInfo` (count, extent, last point) per non-empty series.

        Only series of ``data_class`` and ``plugin_name`` (None: all) that ``keep(run, tag)``
        accepts (the default: sorted by run, then tag). The default reads the series' points
        through the ``read_*`` methods (a blob sequence's last value is its blobs' bytes); a
        provider that knows counts and last points without reading them should override it.

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> provider = InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 3.0), (1, 1.0, -1.0)]}}})
            >>> [(i.count, i.last) for i in provider.series_info(DataClass.SCALAR)]
            [(2, (1, 1.0, -1.0))]
        """
        plugins = self.list_plugins() if plugin_name is None else [plugin_name]
        classes = list(DataClass) if data_class is None else [data_class]
        out = [info for p in plugins for cls in classes for info in series_infos(self, cls, p, keep)]
        return sorted(out, key=lambda info: (info.run, info.tag))

    # -- hparams: computed by the hparams kind over the series ---------------------------------

    def list_hyperparameters(self, *, limit: int | None = None) -> HParamsExperiment:
        """The hparams experiment: hyperparameters with domains, and metrics.

        Taken from ``_hparams_/experiment`` summaries (merged over runs), else inferred
        from the sessions' values and the scalars of their runs (computed by the hparams
        kind, :mod:`tbkit.plugins.hparams.sessions`). Hyperparameters come with differing
        ones first, then by name; ``limit`` keeps that many (None or 0: all).

        Example:
            >>> from tbkit.provider import InMemoryProvider
            >>> InMemoryProvider({}).list_hyperparameters().hyperparameters
            ()
        """
        queries = hparams_queries()
        if queries is None:  # the hparams kind is not loaded: no hparams data were read
            return HParamsExperiment()
        return queries.list_hyperparameters(self, limit=limit)

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
        queries = hparams_queries()
        if queries is None:  # the hparams kind is not loaded: no hparams data were read
            return []
        return queries.read_hyperparameters(
            self, filters=filters, sort=sort, hparams_to_include=hparams_to_include, statuses=statuses
        )

    # -- file-based plugins: files, not series -----------------------------------------------

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

    def read_plugin_files(
        self, plugin_name: str, *, files: Sequence[tuple[str, str]]
    ) -> list[bytes | NotFoundError]:
        """:meth:`read_plugin_file` of each ``(run, path)`` of ``files``, in order: its bytes,
        or the NotFoundError it raised (an implementation may check the listing once)."""
        out: list[bytes | NotFoundError] = []
        for run, path in files:
            try:
                out.append(self.read_plugin_file(plugin_name, run=run, path=path))
            except NotFoundError as exc:
                out.append(exc)
        return out

    def report_plugin_file_problems(
        self, plugin_name: str, *, problems: Sequence[tuple[str, str, str]]
    ) -> None:
        """Keep ``(run, path, reason)`` of the files of ``plugin_name`` its frame could not
        read, replacing those it reported before (a logdir lists them as problems; by
        default they are dropped)."""
        del plugin_name, problems
