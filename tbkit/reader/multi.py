"""One DataProvider over several logdirs, loaded run by run (what ``tbkit serve`` reads).

Each run gets its own :class:`~tbkit.reader.index.LogdirIndex` (rooted at the run's
directory), so a run being read never blocks requests about the others, and runs become
visible one by one while the first load is still going. With several logdirs, run names
are prefixed by the logdir's name (``name/run``, or ``name`` for a logdir's root run).

Example:
    >>> provider = MultiLogdirProvider([("", "memory://nothing/here")])
    >>> provider.reload()
    0
    >>> provider.list_runs()
    []
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

from tbkit.errors import NotFoundError
from tbkit.plugins import registry
from tbkit.provider import DataClass, Keep, PluginFile, Run, Series, SeriesInfo, SeriesProvider
from tbkit.reader.discovery import Discovered, discover
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.plugin_files import set_file_policy
from tbkit.record import storage

__all__ = ["MultiLogdirProvider"]


def _full_name(prefix: str, run: str) -> str:
    if not prefix:
        return run
    return prefix if run == "." else f"{prefix}/{run}"


_FIRST_LOOK = 256 << 10  # bytes per file read by the first pass over new runs
LOAD_THREADS = max(1, min(4, os.cpu_count() or 1))
_GONE = Discovered({})


@dataclasses.dataclass
class _RunEntry:
    provider: LogdirProvider
    ready: bool = False
    generation: int = 0  # its index's generation after its last reload


class MultiLogdirProvider(SeriesProvider):
    """The DataProvider over ``[(name, logdir), ...]``; a name of ``""`` adds no prefix.

    Nothing is read until :meth:`reload` (typically from a background thread). Runs are
    listed as soon as they are discovered; their series appear once the run is read.

    Args:
        logdirs: ``(name, path or URL)`` pairs.
        purge_orphaned_data: Apply ``SessionLog.START`` purges, as TensorBoard does.
        threads: Runs read at the same time (default: the CPU count, at most 4).
        allow_outside_files: Read plugin files a run names that resolve outside its logdir
            (``tbkit serve --allow_outside_files``; see :mod:`tbkit.plugins._paths`).
    """

    def __init__(
        self,
        logdirs: Sequence[tuple[str, str]],
        *,
        purge_orphaned_data: bool = True,
        threads: int = LOAD_THREADS,
        allow_outside_files: bool = False,
    ) -> None:
        self.allow_outside_files = bool(allow_outside_files)
        self.logdirs = [(str(name), str(path)) for name, path in logdirs]
        self._purge = purge_orphaned_data
        self._threads = max(1, int(threads))
        self._lock = threading.Lock()
        self._reload_lock = threading.Lock()
        self._runs: dict[str, _RunEntry] = {}
        self._with_runs: set[int] = set()  # indexes into logdirs where discovery found a run
        self._generations = 0  # the sum of the ready runs' generations
        self._listed: dict[str, Discovered] = {}  # each run directory's part of the last discovery
        self._give_way: Callable[[], None] | None = None

    def data_location(self) -> str:
        if len(self.logdirs) == 1 and not self.logdirs[0][0]:
            return self.logdirs[0][1]
        return ",".join(f"{name}:{path}" for name, path in self.logdirs)

    def data_locations(self) -> list[tuple[str, str]]:
        return list(self.logdirs)

    def discover(self) -> list[str]:
        """Find the runs of every logdir (reads no data); returns the names of new runs."""
        new = []
        listed: dict[str, Discovered] = {}
        for number, (prefix, logdir) in enumerate(self.logdirs):
            discovered = discover(logdir)  # one listing per logdir; each run's index is handed its part
            found = discovered.runs
            if found:
                with self._lock:
                    self._with_runs.add(number)
            for run in found:
                name = _full_name(prefix, run)
                listed[logdir if run == "." else storage.join(logdir, run)] = discovered.of_run(run)
                with self._lock:
                    if name in self._runs:
                        continue
                directory = logdir if run == "." else storage.join(logdir, run)
                index = LogdirIndex(directory, runs=["."], purge_orphaned_data=self._purge, compact=True)
                set_file_policy(index, root=logdir, allow_outside=self.allow_outside_files)
                index.give_way = self._give_way
                with self._lock:
                    self._runs.setdefault(name, _RunEntry(LogdirProvider(index, run_name=name)))
                new.append(name)
        with self._lock:
            self._listed = listed
        return new

    def empty_logdirs(self) -> list[tuple[str, str]]:
        """The ``(name, path)`` logdirs in which discovery has found no run so far."""
        with self._lock:
            return [pair for number, pair in enumerate(self.logdirs) if number not in self._with_runs]

    def reload(self, progress: Callable[[], None] | None = None) -> int:
        """Discover new runs, then read the new bytes of every run, one run at a time.

        Args:
            progress: Called after discovery and after each run is read (e.g. to tell
                clients that something changed while a long first load goes on).

        Returns:
            The data generation (see :attr:`generation`).
        """
        with self._reload_lock:
            self.discover()
            if progress is not None:
                progress()
            with self._lock:
                entries = list(self._runs.values())
            # Runs never read get a quick first look (the start of each file, where each
            # tag's first value is), so that every run and tag is listed within moments
            # even when the whole logdir takes long to read; then everything is read.
            self._each([e for e in entries if not e.ready], _FIRST_LOOK, progress)
            self._each(entries, None, progress)
            return self.generation

    def set_give_way(self, give_way: Callable[[], None] | None) -> None:
        """Every run's loading calls ``give_way`` before applying each window of records."""
        with self._lock:
            self._give_way = give_way
            for entry in self._runs.values():
                entry.provider.set_give_way(give_way)

    def _each(self, entries: list[_RunEntry], limit: int | None, progress: Callable[[], None] | None) -> None:
        """Reload every entry's run, a few at a time (reading and framing release the GIL often)."""

        with self._lock:
            listed = self._listed

        def one(entry: _RunEntry) -> None:
            found = listed.get(entry.provider.index.logdir, _GONE)  # a run gone since: nothing to list
            generation = entry.provider.index.reload(limit=limit, found=found)
            with self._lock:
                self._generations += generation - (entry.generation if entry.ready else 0)
                entry.generation, entry.ready = generation, True

        if self._threads <= 1 or len(entries) <= 1:
            for entry in entries:
                one(entry)
                if progress is not None:
                    progress()
            return
        with ThreadPoolExecutor(min(self._threads, len(entries)), thread_name_prefix="tbkit-load") as pool:
            for done in as_completed([pool.submit(one, e) for e in entries]):
                done.result()
                if progress is not None:
                    progress()

    @property
    def generation(self) -> int:
        """A number that changes whenever a run was discovered or data were added or dropped.

        Kept as a running total of the runs' generations after their reloads (a reload is
        the only way their data change), so asking costs nothing however many runs there are.
        """
        with self._lock:
            return len(self._runs) + self._generations

    @property
    def loaded(self) -> bool:
        """True once every discovered run has been read at least once."""
        with self._lock:
            return all(e.ready for e in self._runs.values())

    def _ready(self) -> list[tuple[str, LogdirProvider]]:
        with self._lock:
            return [(name, e.provider) for name, e in sorted(self._runs.items()) if e.ready]

    def list_runs(self) -> list[Run]:
        with self._lock:
            entries = sorted(self._runs.items())
        out = []
        for name, entry in entries:
            start = None
            if entry.ready:
                runs = entry.provider.list_runs()
                start = runs[0].start_time if runs else None
            out.append(Run(name, name, start))
        return out

    def series(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[Series]:
        out: list[Series] = []
        for _, provider in self._ready():  # each names its series after the run (run_name)
            out.extend(provider.series(data_class, plugin_name, keep))
        return out

    def series_info(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[SeriesInfo]:
        out: list[SeriesInfo] = []
        for _, provider in self._ready():
            out.extend(provider.series_info(data_class, plugin_name, keep))
        return out

    def series_plugins(self) -> set[str]:
        """The plugins of every ready logdir's non-empty series."""
        return set().union(*(provider.series_plugins() for _, provider in self._ready()))

    def file_based_plugins(self) -> tuple[str, ...]:
        """The registry's file-based plugins (see :meth:`SeriesProvider.file_based_plugins`)."""
        return registry.file_based_plugins()

    def list_plugin_files(
        self, plugin_name: str, *, runs: Iterable[str] | None = None
    ) -> dict[str, list[PluginFile]]:
        wanted = None if runs is None else set(runs)
        out = {}
        for name, provider in self._ready():
            if wanted is not None and name not in wanted:
                continue
            for files in provider.list_plugin_files(plugin_name).values():
                out[name] = [dataclasses.replace(f, run=name) for f in files]
        return out

    def read_plugin_file(self, plugin_name: str, *, run: str, path: str) -> bytes:
        for name, provider in self._ready():
            if name == run:
                return provider.read_plugin_file(plugin_name, run=".", path=path)
        raise NotFoundError(f"no {plugin_name} file {path!r} in run {run!r}")
