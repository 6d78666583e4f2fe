"""The in-memory index of a logdir, and the DataProvider over it.

:class:`LogdirIndex` discovers runs, loads their event files incrementally and keeps
every series; :class:`LogdirProvider` serves it through the
:class:`~tbkit.provider.DataProvider` interface, so ``tbkit.read`` and the web server
share one index. Both are safe to use from several threads (one lock).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from tbkit._collector import collector_held
from tbkit.errors import NotFoundError
from tbkit.plugins import registry
from tbkit.provider import (
    DataClass,
    Keep,
    PluginFile,
    Run,
    Series,
    SeriesInfo,
    SeriesProvider,
)
from tbkit.reader.discovery import Discovered, discover
from tbkit.reader.events import Problem, RunData
from tbkit.reader.loader import drop_read_buffer, load_file
from tbkit.reader.names import NameSpec, name_filter
from tbkit.reader.pacing import GivingWay
from tbkit.reader.passed_over import load_passed_over
from tbkit.reader.plugin_files import list_plugin_files, read_listed, read_plugin_file
from tbkit.reader.series import SeriesData
from tbkit.record import storage

__all__ = [
    "LogdirIndex",
    "LogdirProvider",
    "name_filter",
]

LOAD_THREADS = min(4, os.cpu_count() or 1)  # runs loaded at once by a reload
# Beyond this many runs they are loaded one after the other: many runs are mostly small ones,
# whose loading is Python work that threads only slow down (2,000 small runs: 0.56 -> 0.79 s).
PARALLEL_RUNS_MAX = 256
_T = TypeVar("_T")


class LogdirIndex:
    """Every run and series of one logdir, loaded on demand and reloaded incrementally.

    Args:
        logdir: Local path or fsspec URL.
        runs: Only these runs (regex or list of names).
        tags: Only these tags (regex or list of names).
        purge_orphaned_data: Apply ``SessionLog.START`` (and the legacy out-of-order rule).
        compact: Keep scalar points in lossless compact blocks (about 8 bytes a point
            instead of 24, decoded on every read): for long-lived holders like the server.
        listing: Runs already discovered (with their event files and sizes): the index
            never lists the logdir, its runs and files are these (a distributed read's
            task is handed its runs' files this way).
        threads: Runs loaded at once by a reload (of at most 256 runs; more are loaded one
            after the other). 1 where something else runs the loads side by side (the
            workers of a distributed read).
    """

    def __init__(
        self,
        logdir: str,
        *,
        runs: NameSpec = None,
        tags: NameSpec = None,
        purge_orphaned_data: bool = True,
        compact: bool = False,
        listing: Discovered | None = None,
        threads: int = LOAD_THREADS,
    ) -> None:
        self.logdir = str(logdir)
        self._listing = listing
        self._threads = max(1, int(threads))
        self._run_filter = name_filter(runs, "runs")
        self._tag_filter = name_filter(tags, "tags")
        self._purge = purge_orphaned_data
        self._compact = compact
        self._lock = threading.RLock()  # held while data are read or changed
        self._reload_lock = threading.Lock()
        self._files: dict[str, list[str]] = {}
        self._sizes: dict[str, int] = {}  # event file sizes as listed (object stores)
        self._tree: dict[str, int] | None = None  # the last discovery's whole listing (object stores)
        self._unread: Discovered | None = None  # the discovery made before anything was read
        self._runs: dict[str, RunData] = {}
        self._loaded = False
        self._signature: tuple[object, ...] = ()
        self._generation = 0
        self._file_problems: dict[str, list[Problem]] = {}
        self._scalars_only = False  # loaded for scalar series alone, until something else is asked
        self.give_way: Callable[[], None] | None = None  # called before each window is applied

    def discover(self, found: Discovered | None = None) -> dict[str, list[str]]:
        """Find runs and their event files (reads no data); returns ``{run: [paths]}``.

        Args:
            found: A discovery of this logdir already made (e.g. by the caller's listing of
                a parent directory): used instead of listing again.
        """
        with collector_held():  # a run's state is a dozen containers: see tbkit._collector
            return self._discover(found)

    def _discover(self, found: Discovered | None) -> dict[str, list[str]]:
        if found is None:
            found = discover(self.logdir) if self._listing is None else self._listing
        listing = found
        found_runs = listing.runs
        if self._run_filter is not None:
            found_runs = {name: paths for name, paths in found_runs.items() if self._run_filter(name)}
        with self._lock:
            self._files = found_runs
            self._sizes = listing.sizes
            self._tree = listing.tree
            self._unread = None if self._loaded else listing  # the first reload reads what this found
            for name in found_runs:
                if name not in self._runs:
                    options = {"compact": self._compact, "scalars_only": self._scalars_only}
                    self._runs[name] = RunData(name, self._purge, self._tag_filter, **options)
        return found_runs

    def reload(self, limit: int | None = None, *, found: Discovered | None = None) -> int:
        """Discover, then read the new bytes of every event file; returns the data generation.

        Args:
            limit: Read at most this many new bytes per file now (a quick first look; the
                next reload reads on from there).
            found: A discovery of this logdir already made, used instead of listing again.
        """
        with collector_held():  # a load makes many long-lived objects: see tbkit._collector
            return self._reload(limit, found)

    def _reload(self, limit: int | None, found: Discovered | None) -> int:
        files = self.discover(found)
        with self._reload_lock:  # one reload at a time; readers wait only while a window is applied
            with self._lock:
                work = [(self._runs[name], paths) for name, paths in files.items() if paths]
                sizes = self._sizes

            lock = self._lock if self.give_way is None else GivingWay(self._lock, self.give_way)

            def load_run(item: tuple[RunData, list[str]]) -> None:
                for path in item[1]:
                    load_file(item[0], path, limit, lock, size=sizes.get(path))

            try:
                self._each_run(load_run, work)
            finally:
                drop_read_buffer()  # the loading threads' buffers went with them; this thread's too
            with self._lock:
                self._loaded, self._unread = True, None
                return self.generation

    def ensure_loaded(self, *, scalars_only: bool = False) -> None:
        """Load once, on first use.

        ``scalars_only`` (for a first ``scalars()``): when nothing was loaded yet, read the
        scalar series alone, passing every other value over undecoded (and remembering where
        it is). The first call that needs everything (the default) then reads and applies
        just the records passed over (:func:`~tbkit.reader.loader.load_passed_over`).
        """
        if not self._loaded:
            found = None
            with self._reload_lock:
                if not self._loaded:
                    self._scalars_only = scalars_only
                    for run in self._runs.values():  # discovered, nothing read yet
                        run.scalars_only = scalars_only and not run.files
                    found = self._unread  # discovered at open: the first read does not list again
            self.reload(found=found)
        elif self._scalars_only and not scalars_only:
            with self._reload_lock:
                if not self._scalars_only:  # another thread did it meanwhile
                    return
                with self._lock:
                    runs = list(self._runs.values())
                with collector_held():
                    self._each_run(lambda run: load_passed_over(run, self._lock), runs)
                self._scalars_only = False

    def _each_run(self, work: Callable[[_T], None], items: list[_T]) -> None:
        """``work(item)`` for each run's item, side by side on the index's threads (framing and
        bulk decoding release the GIL) unless there are very many runs or the caller holds the
        lock (the threads would wait for it)."""
        workers = min(self._threads, len(items)) if len(items) <= PARALLEL_RUNS_MAX else 1
        if self._lock._is_owned():  # type: ignore[attr-defined]
            workers = 1
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="tbkit-load") as pool:
                list(pool.map(work, items))
        else:
            for item in items:
                work(item)

    @property
    def generation(self) -> int:
        """A counter that goes up whenever data were added or dropped, or problems found or cleared."""
        signature = tuple(
            (
                name,
                run.generation,
                len(run.problems),
                tuple(sorted((p, s.tail.offset, s.tail.reason) for p, s in run.files.items() if s.tail)),
            )
            for name, run in sorted(self._runs.items())
        ) + tuple((kind, len(found)) for kind, found in sorted(self._file_problems.items()))
        if signature != self._signature:
            self._signature = signature
            self._generation += 1
        return self._generation

    def listed_tree(self) -> dict[str, int] | None:
        """The last discovery's listing of every file below the logdir with its size
        (:attr:`Discovered.tree`: object stores), or None (local logdirs, nothing listed)."""
        with self._lock:
            return self._tree

    def files(self) -> dict[str, list[str]]:
        """The event files per run, as last discovered."""
        if not self._files and not self._loaded:
            self.discover()
        return dict(self._files)

    def runs(self, *, scalars_only: bool = False) -> list[RunData]:
        """Every run (loaded; see :meth:`ensure_loaded` for ``scalars_only``), sorted by name."""
        self.ensure_loaded(scalars_only=scalars_only)
        with self._lock:
            return [self._runs[name] for name in sorted(self._files)]

    def problems(self) -> list[Problem]:
        """Every problem met so far, plus pending incomplete last records.

        Problems of file-based kinds (embeddings, traces) are listed once those were read.
        """
        out = []
        for run in self.runs():
            out.extend(run.problems)
            out.extend(state.tail for state in run.files.values() if state.tail is not None)
        with self._lock:
            for kind in sorted(self._file_problems):
                out.extend(self._file_problems[kind])
        return out

    # -- file-based kinds (projector, profile): read through their plugins, not the loader --

    def wants_run(self, run: str) -> bool:
        """Whether the ``runs=`` filter keeps ``run``."""
        return self._run_filter is None or bool(self._run_filter(run))

    def run_dir(self, run: str) -> str:
        """The directory of ``run`` (``.`` is the logdir itself)."""
        return self.logdir if run == "." else storage.join(self.logdir, *run.split("/"))

    def file_runs(self) -> list[str]:
        """Runs where file-based plugins look for their files: every run, and the logdir itself."""
        return sorted(name for name in set(self.files()) | {"."} if self.wants_run(name))

    def set_file_problems(self, kind: str, problems: list[Problem]) -> None:
        """Replace the problems found by the file-based kind ``kind`` (its latest read)."""
        with self._lock:
            self._file_problems[kind] = list(problems)


def _blob_values(series_values: np.ndarray, plugin_name: str) -> list[list[bytes]]:
    dec = registry.decoder(plugin_name)
    project = getattr(dec, "blobs", None)
    if project is None:
        return [list(np.asarray(v, dtype=object).reshape(-1)) for v in series_values]
    return [project(v) for v in series_values]


def _blob_labels(series_values: np.ndarray, plugin_name: str) -> list[list[str]] | None:
    """Per point, the labels of its blobs, for kinds whose decoder has ``labels(stored)``."""
    labels = getattr(registry.decoder(plugin_name), "labels", None)
    return None if labels is None else [labels(v) for v in series_values]


class LogdirProvider(SeriesProvider):
    """The DataProvider over a :class:`LogdirIndex` (loaded on first use).

    ``run_name``: the name the series of the logdir's own run (``.``) are given (in
    :meth:`series` and :meth:`series_info`), for a provider over one run of a larger logdir.

    Example:
        >>> provider = LogdirProvider(LogdirIndex("memory://empty"))
        >>> provider.list_runs()
        []
    """

    def __init__(self, index: LogdirIndex, *, run_name: str | None = None) -> None:
        self.index = index
        self._root_name = run_name  # what series of the logdir's own run "." are called

    def data_location(self) -> str:
        return self.index.logdir

    @property
    def generation(self) -> int:
        """The index's data generation (see :attr:`LogdirIndex.generation`)."""
        return self.index.generation

    def reload(self, progress: Callable[[], None] | None = None) -> int:
        """Read the logdir's new bytes in one go (:meth:`LogdirIndex.reload`); ``progress`` is not called."""
        return self.index.reload()

    def set_give_way(self, give_way: Callable[[], None] | None) -> None:
        self.index.give_way = give_way

    def list_runs(self) -> list[Run]:
        return [Run(r.name, r.name, r.start_time) for r in self.index.runs()]

    def file_based_plugins(self) -> tuple[str, ...]:
        """The registry's file-based plugins (see :meth:`SeriesProvider.file_based_plugins`)."""
        return registry.file_based_plugins()

    def list_plugin_files(
        self, plugin_name: str, *, runs: Iterable[str] | None = None
    ) -> dict[str, list[PluginFile]]:
        return list_plugin_files(self.index, plugin_name, None if runs is None else set(runs))

    def read_plugin_file(self, plugin_name: str, *, run: str, path: str) -> bytes:
        return read_plugin_file(self.index, plugin_name, run, path)

    def read_plugin_files(
        self, plugin_name: str, *, files: Sequence[tuple[str, str]]
    ) -> list[bytes | NotFoundError]:
        """:meth:`read_plugin_file` of each ``(run, path)``, the plugin's files listed once."""
        listing = list_plugin_files(self.index, plugin_name, {run for run, _ in files})
        listed = {(run, f.path) for run, found in listing.items() for f in found}
        return [read_listed(self.index, plugin_name, run, path, listed) for run, path in files]

    def report_plugin_file_problems(
        self, plugin_name: str, *, problems: Sequence[tuple[str, str, str]]
    ) -> None:
        """The problems of ``problems()`` (see :meth:`LogdirIndex.set_file_problems`)."""
        self.index.set_file_problems(
            plugin_name, [Problem(run, path, None, reason) for run, path, reason in problems]
        )

    def _chosen(
        self, data_class: DataClass | None, plugin_name: str | None, keep: Keep | None = None
    ) -> Iterator[tuple[str, str, SeriesData]]:
        """``(run, tag, series)`` of the non-refused series asked for; call with the lock held."""
        for run in self.index.runs():
            name = self._root_name if self._root_name is not None and run.name == "." else run.name
            for tag in sorted(run.series):
                s = run.series[tag]
                meta = s.meta
                if s.refused or (data_class is not None and meta.data_class is not data_class):
                    continue
                if plugin_name is not None and meta.plugin_name != plugin_name:
                    continue
                if keep is None or keep(name, tag):
                    yield name, tag, s

    def series(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[Series]:
        out = []
        with self.index._lock:
            for run, tag, s in self._chosen(data_class, plugin_name, keep):
                meta = s.meta
                steps, walls, values = s.columns()
                labels = None
                if meta.data_class is DataClass.BLOB_SEQUENCE:
                    labels = _blob_labels(values, meta.plugin_name)
                    values = _blob_values(values, meta.plugin_name)
                texts = (meta.plugin_content, meta.display_name, meta.description)
                out.append(
                    Series(run, tag, meta.plugin_name, meta.data_class, steps, walls, values, *texts, labels)
                )
        return out

    def series_plugins(self) -> set[str]:
        """The plugins of the non-empty series, without listing them (10,000 tags: 40 ms -> 1 ms)."""
        with self.index._lock:
            return {
                s.meta.plugin_name
                for run in self.index.runs()
                for s in run.series.values()
                if s.meta.plugin_name and not s.refused and len(s)
            }

    def series_info(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[SeriesInfo]:
        out = []
        with self.index._lock:
            for run, tag, s in self._chosen(data_class, plugin_name, keep):
                extent, last = s.extent(), s.last()
                if extent is None or last is None:
                    continue
                meta = s.meta
                longest = 0
                if meta.data_class is DataClass.BLOB_SEQUENCE:
                    longest = max(map(len, _blob_values(s.columns()[2], meta.plugin_name)))
                texts = (meta.plugin_content, meta.display_name, meta.description)
                out.append(
                    SeriesInfo(
                        run, tag, meta.plugin_name, meta.data_class, len(s), *extent, last, longest, *texts
                    )
                )
        return out
