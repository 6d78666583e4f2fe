"""Logdirs as Dask DataFrames (:func:`tbkit.read_dask`): each partition a group of runs, read by its task.

The runs are discovered once, on the caller's side (listings only, no data); each partition
is a group of runs (equal shares of their event files' bytes, see :func:`partition_count`; a
big run alone), handed to its task with their event files (and, on object stores, sizes),
so a task lists nothing: it reads its files and builds the frame of its runs; a cluster's
workers read in parallel and only the frames travel. Columns and dtypes are those of the
pandas frame of the same kind (``run`` and ``tag`` categorical, with categories unknown to
Dask until computed).
"""

from __future__ import annotations

import glob as globbing
import hashlib
import os
import posixpath
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError, StorageError
from tbkit.reader.discovery import Discovered, checked_logdir, discover
from tbkit.reader.names import NameSpec, name_filter
from tbkit.record import storage

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["dask_frame", "expand_logdirs", "partition_count"]

_GLOB_CHARS = frozenset("*?[")
Reader = Callable[..., Any]  # Logdir: (path, runs=, tags=, purge_orphaned_data=) -> .frame(kind)


def _dask_dataframe() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:
        raise MissingDependencyError("dask", extra="dask", feature="Dask DataFrames") from exc
    return dd


def expand_logdirs(logdirs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    """The logdirs named by a path, a URL, a glob of either, or a list of those, in order.

    Example:
        >>> expand_logdirs(["runs/a", "runs/b"])
        ['runs/a', 'runs/b']
    """
    given = [logdirs] if isinstance(logdirs, str | os.PathLike) else list(logdirs)
    out: list[str] = []
    for item in given:
        if not isinstance(item, str | os.PathLike):
            raise InvalidArgumentError(f"a logdir must be a path or URL, got {type(item).__name__}")
        path = os.fspath(item)
        if not _GLOB_CHARS & set(path):
            out.append(path)
        elif storage.is_local(path):
            out.extend(sorted(globbing.glob(path)))
        else:
            import fsspec

            fs, pattern = fsspec.core.url_to_fs(path)
            protocol = path.split("://", 1)[0]
            out.extend(f"{protocol}://{match}" for match in sorted(fs.glob(pattern)))
    return out


def _prefixes(logdirs: list[str]) -> list[str]:
    """What each logdir's runs are named under: nothing for one logdir, else its distinct path.

    Several logdirs name their runs ``<part>/<run>``, where ``<part>`` is the logdir's path
    after the part all of them share (as ``--logdir_spec`` names them ``<name>/<run>``).
    """
    if len(logdirs) <= 1:
        return [""] * len(logdirs)
    parts = [d.rstrip("/").split("/") for d in logdirs]
    shared = 0
    while all(len(p) > shared + 1 and p[shared] == parts[0][shared] for p in parts):
        shared += 1
    return ["/".join(p[shared:]) for p in parts]


def _run_name(prefix: str, run: str) -> str:
    if not prefix:
        return run
    return prefix if run == "." else posixpath.join(prefix, run)


@dataclass(frozen=True, eq=False)
class Part:
    """A partition: its logdir, ``{run: name in the result}`` and the runs' files (and sizes).

    Unpacks as ``logdir, names, listing``. Dask names its task after
    :meth:`__dask_tokenize__`, a digest of those strings: Dask's own hashing of the nested
    lists of 2,000 runs took 0.12 s of every :func:`dask_frame` call, half of building it.
    """

    logdir: str
    names: dict[str, str]
    listing: Discovered

    def __iter__(self) -> Iterator[Any]:
        return iter((self.logdir, self.names, self.listing))

    def __dask_tokenize__(self) -> str:
        sizes = self.listing.sizes
        words = [self.logdir, *(f"{run}\x01{name}" for run, name in self.names.items())]
        for run, paths in self.listing.runs.items():
            words.append(f"{run}\x02" + "\x01".join(f"{p}\x03{sizes.get(p, -1)}" for p in paths))
        data = "\x00".join(words).encode("utf-8", "surrogateescape")
        return hashlib.blake2b(data, digest_size=16).hexdigest()


# By default the runs are cut into equal shares of their event files' bytes (a run is never
# split: a run bigger than a share ends its partition), as many as hold about PARTITION_BYTES
# each and at least one a thread of the scheduler (shares of SPLIT_BYTES at least), in whole
# rounds of its threads, PARTITIONS at most (or one a thread on a bigger cluster). A task's
# fixed cost (scheduling, its frame sent and concatenated) is then small beside its reading,
# and no thread waits for a last, lone task. 2,000 runs of 27 kB (54 MB) on 2 workers of 1
# thread: 13 partitions of 4 MB took 1.0-1.7 s, 4 of 13.5 MB 0.38-0.44 s, 2 of 27 MB (one a
# thread) 0.33-0.36 s, of which the reading is 0.13-0.16 s.
PARTITION_BYTES = 64 << 20
SPLIT_BYTES = 1 << 20
PARTITIONS = 64


def partition_count(total: int, threads: int) -> int:
    """The partitions ``total`` bytes of event files are cut into for ``threads`` threads.

    As many as hold about :data:`PARTITION_BYTES` each, at least one a thread (as long as
    each holds :data:`SPLIT_BYTES`), rounded up to whole rounds of the threads, and at most
    :data:`PARTITIONS` (or ``threads``, if more).

    Example:
        >>> partition_count(54 << 20, 2), partition_count(200 << 20, 2), partition_count(10_000, 8)
        (2, 4, 1)
    """
    threads = max(1, threads)
    count = -(-total // PARTITION_BYTES)
    if count < threads:
        count = max(count, min(threads, total // SPLIT_BYTES))
    else:
        count = -(-count // threads) * threads
    return max(1, min(max(PARTITIONS, threads), count))


def scheduler_threads() -> int:
    """The threads the default scheduler computes with: a ``dask.distributed`` client's
    workers' threads (the client's own, from the scheduler), else Dask's local threads
    (``num_workers`` or the CPU count). An asynchronous client, which could only answer
    later, counts as the CPU count."""
    import dask

    if not dask.config.get("scheduler", None):
        try:
            from distributed import Client

            client = Client.current(allow_global=True)
        except (ImportError, ValueError):  # no dask.distributed, or no client
            client = None
        if client is not None and not client.asynchronous:
            try:
                threads = sum(client.nthreads().values())
            except (OSError, TimeoutError):  # the scheduler does not answer: compute will say so
                threads = 0
            if threads:
                return int(threads)
    return int(dask.config.get("num_workers", None) or os.cpu_count() or 1)


def read_runs_frame(
    part: Part,
    kind: str,
    reader: Reader,
    tags: NameSpec,
    purge_orphaned_data: bool,
    dtypes: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The ``kind`` frame of a partition's runs (a task), each run named as the result names it.

    ``part`` is ``(logdir, {run: name}, discovered)``: the runs' event files (and sizes) were
    found by the caller's discovery, so the task lists nothing. An empty frame takes
    ``dtypes`` (the first partition's), which its empty columns could not show (an empty
    text column is ``object``, a filled one ``str``).
    """
    import pandas as pd

    logdir, names, listing = part
    frame = reader._listed(logdir, listing, tags=tags, purge_orphaned_data=purge_orphaned_data).frame(kind)
    if "run" in frame.columns and any(run != name for run, name in names.items()):
        if isinstance(frame["run"].dtype, pd.CategoricalDtype):
            renamed = {c: names.get(c, c) for c in frame["run"].cat.categories}
            frame["run"] = frame["run"].cat.rename_categories(renamed)
        else:
            frame["run"] = frame["run"].map(lambda run: names.get(run, run))
    if frame.empty and dtypes:
        frame = frame.astype({c: t for c, t in dtypes.items() if not isinstance(t, pd.CategoricalDtype)})
    return frame


def _parts(
    logdirs: list[str],
    wanted: Callable[[str], bool] | None,
    runs_per_partition: int | None,
    threads: int = 1,
) -> list[Part]:
    """The partitions: runs in order, ``runs_per_partition`` a partition or grouped by their
    bytes (:func:`partition_count` of them, for ``threads``), never two logdirs' runs in one."""
    found: list[tuple[str, Discovered, list[tuple[str, str]]]] = []
    for logdir, prefix in zip(logdirs, _prefixes(logdirs), strict=True):
        listing = discover(checked_logdir(logdir))
        named = [(run, _run_name(prefix, run)) for run in sorted(listing.runs)]
        found.append(
            (logdir, listing, [(run, name) for run, name in named if wanted is None or wanted(name)])
        )
    if runs_per_partition is not None and runs_per_partition < 1:
        raise InvalidArgumentError(f"runs_per_partition must be at least 1, got {runs_per_partition}")
    weighed = [
        [(run, name, sum(_size(listing, p) for p in listing.runs[run])) for run, name in runs]
        for _, listing, runs in found
    ]
    total = sum(b for runs in weighed for _, _, b in runs)
    count = partition_count(total, threads)  # partitions wanted ...
    budget = max(1, -(-total // count))  # ... of equal shares (not full ones and a small last one)
    parts: list[Part] = []
    for (logdir, listing, _), runs in zip(found, weighed, strict=True):
        group: dict[str, str] = {}
        held = 0
        for run, name, size in runs:
            group[run] = name
            held += size
            if len(group) >= runs_per_partition if runs_per_partition is not None else held >= budget:
                parts.append(_part(logdir, listing, group))
                group, held = {}, 0
        if group:
            parts.append(_part(logdir, listing, group))
    return parts


def _size(listing: Discovered, path: str) -> int:
    listed = listing.sizes.get(path)
    if listed is not None:
        return listed
    try:
        return storage.size(path) if storage.is_local(path) else 0
    except StorageError:
        return 0


def _part(logdir: str, listing: Discovered, group: dict[str, str]) -> Part:
    paths = {run: listing.runs[run] for run in group}
    sizes = {p: listing.sizes[p] for files in paths.values() for p in files if p in listing.sizes}
    return Part(logdir, group, Discovered(paths, sizes))


def dask_frame(
    logdirs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    kind: str,
    *,
    reader: Reader,
    runs: NameSpec = None,
    tags: NameSpec = None,
    purge_orphaned_data: bool = True,
    runs_per_partition: int | None = None,
) -> Any:
    """:func:`read_dask`'s work: ``reader`` (:class:`tbkit.Logdir`) reads each partition's runs.

    The logdirs are discovered here, once; each partition is handed its runs' event files.
    """
    dd = _dask_dataframe()
    threads = scheduler_threads() if runs_per_partition is None else 1
    parts = _parts(expand_logdirs(logdirs), name_filter(runs, "runs"), runs_per_partition, threads)
    import dask
    from dask.dataframe.utils import clear_known_categories

    if not parts:  # the columns and dtypes of an empty frame of the kind
        empty = reader(_empty_logdir(), tags=tags, purge_orphaned_data=purge_orphaned_data)
        meta = empty.frame(kind).iloc[:0]
    else:  # the first run's: its filled columns show their dtypes (str, not object)
        logdir, names, listing = parts[0]
        first = next(iter(names))
        sample = Part(logdir, {first: names[first]}, _only(listing, first))
        meta = read_runs_frame(sample, kind, reader, tags, purge_orphaned_data).iloc[:0]
    meta = clear_known_categories(meta)
    dtypes = meta.dtypes.to_dict()
    # Dask would turn object columns into strings; these hold arrays and bytes, as in pandas.
    with dask.config.set({"dataframe.convert-string": False}):
        if not parts:
            return dd.from_pandas(meta, npartitions=1)
        return dd.from_map(
            lambda part: read_runs_frame(part, kind, reader, tags, purge_orphaned_data, dtypes),
            parts,
            meta=meta,
            enforce_metadata=False,
        )


def _only(listing: Discovered, run: str) -> Discovered:
    paths = listing.runs[run]
    return Discovered({run: paths}, {p: listing.sizes[p] for p in paths if p in listing.sizes})


def _empty_logdir() -> str:
    """An empty ``memory://`` logdir, for the columns of an empty result."""
    import fsspec

    path = "/tbkit-empty-logdir"
    fsspec.filesystem("memory").makedirs(path, exist_ok=True)
    return f"memory://{path}"
