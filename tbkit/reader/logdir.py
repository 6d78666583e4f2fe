"""``tbkit.read(logdir)``: a logdir as pandas frames, read on first use and cached."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import registry
from tbkit.plugins.scalars.metadata import PLUGIN_NAME as SCALARS
from tbkit.reader import frames
from tbkit.reader.discovery import Discovered, checked_logdir, listed_at_open
from tbkit.reader.frame_kinds import about_method, dispatched, frame_kinds, frame_method, has_own_method
from tbkit.reader.index import LogdirIndex, LogdirProvider, NameSpec
from tbkit.reader.plugin_files import set_file_policy

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Logdir", "frame_kinds", "read"]


def read(
    logdir: str | os.PathLike[str],
    *,
    runs: NameSpec = None,
    tags: NameSpec = None,
    purge_orphaned_data: bool = True,
    allow_outside_files: bool = False,
) -> Logdir:
    """Open a logdir for reading: discovers runs now, reads data on first use.

    ``logdir`` may also be one event file: it is read as a logdir with one run, ``.`` (the
    name a run gets when its event files lie in the logdir itself), and only that file is
    read (not the other files beside it).

    Args:
        logdir: Local path or fsspec URL (``memory://``, ``s3://`` ...) of a log directory
            or of one event file.
        runs: Only runs whose name fully matches this regex, or is in this list.
        tags: Only tags whose name fully matches this regex, or is in this list.
        purge_orphaned_data: Drop points orphaned by a restart (``SessionLog.START``), as
            TensorBoard does by default.
        allow_outside_files: Read the files a run names (projector tensors and metadata,
            profile traces) even where they resolve outside the logdir (a symlink, an absolute
            or ``..`` path), as ``tbkit serve --allow_outside_files``; see ``docs/security.md``.

    Raises:
        InvalidArgumentError: ``logdir`` is not a path (``None``, a number ...) or is empty.
        PathNotFoundError: Nothing exists at ``logdir`` (a :class:`FileNotFoundError` too).
        DataError: ``logdir`` is a file that is not an event file (its name has no
            ``tfevents`` and it does not start with a TFRecord).

    Example:
        >>> df = read("runs").scalars()  # doctest: +SKIP
        >>> df.groupby(["run", "tag"], observed=True)["value"].last()  # doctest: +SKIP
        >>> read("runs/train/events.out.tfevents.1700000000.host.1.0").runs()["run"]  # doctest: +SKIP
        0    .
    """
    return Logdir(
        logdir,
        runs=runs,
        tags=tags,
        purge_orphaned_data=purge_orphaned_data,
        allow_outside_files=allow_outside_files,
    )


def _blob(row: Any) -> bytes:
    """The ``data`` bytes of a frame row (or the bytes themselves)."""
    return bytes(row if isinstance(row, bytes | bytearray) else row["data"])


class Logdir:
    """The runs and series of one logdir, as long-format pandas frames.

    ``logdir`` is a directory or one event file (see :func:`read`, which checks it the same
    way). Every frame has categorical ``run`` and ``tag``, int64 ``step`` and float64
    ``wall_time`` columns; frames are cached until :meth:`reload` finds new data, and
    each call returns a shallow copy (changing it never changes the cache).
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        *,
        runs: NameSpec = None,
        tags: NameSpec = None,
        purge_orphaned_data: bool = True,
        allow_outside_files: bool = False,
    ) -> None:
        found = listed_at_open(logdir)
        path = str(logdir) if found is not None else checked_logdir(logdir)
        index = LogdirIndex(path, runs=runs, tags=tags, purge_orphaned_data=purge_orphaned_data)
        self._start(index, runs, tags, purge_orphaned_data, allow_outside_files, found)

    @classmethod
    def _listed(
        cls, logdir: str, listing: Discovered, *, tags: NameSpec, purge_orphaned_data: bool
    ) -> Logdir:
        """The runs of ``listing`` (discovered elsewhere) as a Logdir that never lists ``logdir``
        (a task of :func:`read_dask`, handed its runs' files)."""
        self = cls.__new__(cls)
        options = {
            "tags": tags,
            "purge_orphaned_data": purge_orphaned_data,
        }  # one thread: Dask's workers are the parallelism
        index = LogdirIndex(logdir, **options, listing=listing, threads=1)  # type: ignore[arg-type]
        self._start(index, None, tags, purge_orphaned_data, False)
        return self

    def _start(
        self,
        index: LogdirIndex,
        runs: NameSpec,
        tags: NameSpec,
        purge_orphaned_data: bool,
        outside: bool,
        found: Discovered | None = None,
    ) -> None:
        self._index = index
        if outside:
            set_file_policy(self._index, allow_outside=True)
        self._index.discover(found)  # kept for the first frame, which lists nothing again
        self._options: dict[str, Any] = {"runs": runs, "tags": tags}  # as given, for to_dask
        self._options["purge_orphaned_data"] = purge_orphaned_data
        self._provider = LogdirProvider(self._index)
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._file_cache: dict[tuple[Any, ...], Any] = {}  # file-based kinds: until reload()
        self._generation = -1

    def __repr__(self) -> str:
        return f"Logdir({self._index.logdir!r}, runs={len(self._index.files())})"

    @property
    def path(self) -> str:
        """The logdir (or the event file it was opened on)."""
        return self._index.logdir

    @property
    def provider(self) -> LogdirProvider:
        """The :class:`~tbkit.provider.DataProvider` over the same index (for the server)."""
        return self._provider

    def _cached(self, key: tuple[Any, ...], build: Any, *, scalars_only: bool = False) -> pd.DataFrame:
        self._index.ensure_loaded(scalars_only=scalars_only)
        generation = self._index.generation
        if generation != self._generation:
            self._cache.clear()
            self._generation = generation
        frame = self._cache.get(key)
        if frame is None:
            frame = self._cache[key] = build()
        return frames.handed_out(frame)

    def _cached_scalars(self, pivot: bool, build: Any) -> pd.DataFrame:
        """:meth:`_cached` of the scalars frame, which a logdir read for scalars alone can give."""
        return self._cached(("scalar series", pivot), build, scalars_only=True)

    def _cached_files(self, key: tuple[Any, ...], build: Any) -> pd.DataFrame:
        frame = self._file_cache.get(key)
        if frame is None:
            frame = self._file_cache[key] = build()
        return frames.handed_out(frame)

    def reload(self) -> Logdir:
        """Read what was written since the last read (new runs, files and bytes only).

        Embeddings and traces (plain files, not events) are read again on their next call.
        """
        self._index.reload()
        self._file_cache.clear()
        return self

    @about_method
    def runs(self) -> pd.DataFrame:
        """run, start_time, event_files (paths in name order), problems (count)."""
        return self._cached(("runs",), lambda: frames.runs_frame(self._index))

    @about_method
    def tags(self) -> pd.DataFrame:
        """run, tag, plugin, data_class, count, first_step, last_step, display_name, description."""
        return self._cached(("tags",), lambda: frames.tags_frame(self._index))

    @about_method
    def problems(self) -> pd.DataFrame:
        """run, path, offset, reason of each corrupt or unreadable record (and pending tails)."""
        return self._cached(("problems",), lambda: frames.problems_frame(self._index))

    @frame_method
    def scalars(self, pivot: bool = False) -> pd.DataFrame:
        """run, tag, step, wall_time, value (float64); ``pivot=True``: run, step, one column per tag.

        In the wide form a (run, tag, step) written more than once keeps its last value.
        """
        return self._cached_scalars(pivot, lambda: frames.scalars_frame(self._index, pivot=pivot))

    @frame_method
    @dispatched
    def histograms(self) -> pd.DataFrame:
        """run, tag, step, wall_time, edges (k+1 bucket edges), counts (k)."""
        return self.frame("histograms")

    @frame_method
    @dispatched
    def images(self) -> pd.DataFrame:
        """run, tag, step, wall_time, index, width, height, format, data (encoded bytes)."""
        return self.frame("images")

    @frame_method
    @dispatched
    def audio(self) -> pd.DataFrame:
        """run, tag, step, wall_time, index, sample_rate, num_channels, length_frames, label, data."""
        return self.frame("audio")

    @frame_method
    @dispatched
    def text(self) -> pd.DataFrame:
        """run, tag, step, wall_time, text (a str; for a table, the array of strings)."""
        return self.frame("text")

    @frame_method
    def tensors(self, plugin: str | None = None) -> pd.DataFrame:
        """run, tag, plugin, step, wall_time, value (ndarray) of ``plugin``'s series.

        Without ``plugin``: every non-scalar series that has no method of its own.
        """
        return self._cached(("tensors", plugin), lambda: frames.tensors_frame(self._index, plugin))

    @frame_method
    @dispatched
    def pr_curves(self) -> pd.DataFrame:
        """run, tag, step, wall_time, thresholds, tp, fp, tn, fn, precision, recall (float64 arrays)."""
        return self.frame("pr_curves")

    @frame_method
    @dispatched
    def custom_scalars(self) -> pd.DataFrame:
        """run, tag, step, wall_time, layout (``{category: {title: [kind, tags]}}``), proto (``Layout``)."""
        return self.frame("custom_scalars")

    @frame_method
    @dispatched
    def meshes(self) -> pd.DataFrame:
        """run, tag (mesh name), step, wall_time, vertices, faces, colors (arrays or None), config (dict)."""
        return self.frame("meshes")

    @frame_method
    @dispatched
    def graphs(self) -> pd.DataFrame:
        """run, tag, step, wall_time, kind (op_graph, keras, run_metadata), graph, nodes (count).

        ``graph`` is a ``GraphDef`` message for op graphs, the model config dict for Keras
        models, the serialized ``RunMetadata`` for run metadata.
        """
        return self.frame("graphs")

    @frame_method
    @dispatched
    def graph_nodes(self) -> pd.DataFrame:
        """run, tag, step, kind, name, op, inputs, shape, scope, device: one row per graph node
        (op graphs) or layer (Keras models)."""
        return self.frame("graph_nodes")

    @frame_method
    @dispatched
    def hparams(self) -> pd.DataFrame:
        """One row per session: run, group, status, start_time, end_time, each hyperparameter
        (float64, boolean or string; NA where missing), then each metric's last value (float64)."""
        return self.frame("hparams")

    @frame_method
    @dispatched
    def embeddings(self) -> pd.DataFrame:
        """run, tag, step, shape, tensor (N×D float64), metadata (frame or None), sprite (PNG bytes),
        sprite_image_dim, tensor_path: the projector's embeddings, read from their files."""
        return self.frame("embeddings")

    @frame_method
    @dispatched
    def traces(self, top: int | None = 20) -> pd.DataFrame:
        """run, session, worker, path, events, start_us, span_us, top_ops (frame of the ``top`` ops
        by self time: name, category, count, total_us, self_us): one row per profiler trace file."""
        return self.frame("traces", top=top)

    def aggregate(
        self, by: Any, *, stat: str = "mean", band: str = "std", keep_ungrouped: bool = True
    ) -> pd.DataFrame:
        """The scalars of run groups: group, tag, step, wall_time, value, lower, upper, count.

        ``by`` is a regex whose first capture group names a run's group (``r"(.*)_seed\\d+"``),
        ``"hparam:NAME"`` (the runs' hyperparameter ``NAME``, from :meth:`hparams`), a
        ``{run: group}`` mapping or a function of the run name. ``stat`` is ``"mean"`` or
        ``"median"``, ``band`` ``"std"`` (± the standard deviation) or ``"minmax"``. Steps are
        aligned: a step's statistics use the members that have it (``count``). See
        :func:`tbkit.aggregate`.
        """
        from tbkit.plugins.scalars.aggregate import HPARAM_PREFIX, aggregate

        needs_hparams = isinstance(by, str) and by.startswith(HPARAM_PREFIX)
        return aggregate(
            self.scalars(),
            by,
            stat=stat,
            band=band,
            hparams=self.hparams() if needs_hparams else None,
            keep_ungrouped=keep_ungrouped,
        )

    def to_parquet(
        self,
        path: str,
        kind: str = SCALARS,
        *,
        partition_by: str | Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Write the frame of ``kind`` (e.g. ``"scalars"``, ``"images"``) as Parquet.

        Array cells become lists. Without ``partition_by``, one file, extra keyword
        arguments going to ``DataFrame.to_parquet``; with it (a column, e.g. ``"run"``, or
        several), a Hive-partitioned dataset under the directory ``path``, local or an
        fsspec URL, that DuckDB, Dask, Polars and Spark read directly (see
        :mod:`tbkit.reader.parquet_dataset`).
        """
        frame = self._frame_of(kind)
        if partition_by is None:
            frames.export_frame(frame, path, "parquet", **kwargs)
            return
        from tbkit.reader.parquet_dataset import write_partitioned

        keys = [partition_by] if isinstance(partition_by, str) else list(partition_by)
        write_partitioned(frame, path, keys)

    def to_dask(self, kind: str = SCALARS, *, runs_per_partition: int | None = None) -> Any:
        """The frame of ``kind`` as a Dask DataFrame, each partition a group of runs (read by Dask's workers).

        The same runs and tags as this logdir's; see :func:`tbkit.read_dask`.
        """
        from tbkit.reader.distributed import dask_frame

        return dask_frame(
            self.path, kind, reader=type(self), runs_per_partition=runs_per_partition, **self._options
        )

    def to_csv(self, path: str, kind: str = "scalars", **kwargs: Any) -> None:
        """Write the frame of ``kind`` to CSV: array cells as JSON lists, bytes as base64."""
        frames.export_frame(self._frame_of(kind), path, "csv", **kwargs)

    def _frame_of(self, kind: str) -> pd.DataFrame:
        return self.frame(kind)

    def frame(self, kind: str, **options: Any) -> pd.DataFrame:
        """The frame of ``kind`` by name (one of :func:`frame_kinds`).

        A kind with a method of its own (``"scalars"``, ``"images"``, ``"runs"`` ...) gives
        that method's frame with its default arguments. Any other kind is one a registered
        plugin declares in ``Plugin.frames`` (built-in or third party, see
        :class:`tbkit.plugins.spec.Plugin`): its builder is called as
        ``builder(self.provider, plugin)`` and the frame is cached like the others (until
        new data are read; a file-based plugin's until :meth:`reload`). ``options`` go to
        the builder as keywords (e.g. ``traces``' ``top``); a method that is a one-line
        dispatch to this one (``hparams()``) names its kind's builder the same way.

        Raises:
            InvalidArgumentError: No method and no plugin gives a frame of that name.

        Example:
            >>> tbkit.read("runs").frame("scalars").equals(tbkit.read("runs").scalars())  # doctest: +SKIP
            True
            >>> tbkit.read("runs").frame("confusion")  # doctest: +SKIP
            (the frame of the example plugin in examples/custom_plugin)
        """
        if has_own_method(kind):
            return getattr(self, kind)()
        found = registry.frame_builder(kind)
        if found is None:
            raise InvalidArgumentError(f"unknown frame kind {kind!r}; one of {', '.join(frame_kinds())}")
        plugin, builder = found
        cache = self._cached_files if plugin.file_based else self._cached
        key = ("frame", kind, *sorted(options.items()))
        return cache(key, lambda: builder(self._provider, plugin, **options))

    @staticmethod
    def decode_image(row: Any) -> np.ndarray:
        """Decode an ``images()`` row (or its ``data`` bytes) to an H×W(×C) uint8 array (Pillow)."""
        return registry.decoder("images").to_array(_blob(row))

    @staticmethod
    def decode_audio(row: Any) -> tuple[np.ndarray, int]:
        """Decode an ``audio()`` row (or its ``data`` bytes) to ``(samples, sample_rate)`` (soundfile)."""
        return registry.decoder("audio").to_array(_blob(row))
