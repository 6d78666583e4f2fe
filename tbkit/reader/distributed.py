"""Logdirs as Dask DataFrames (:func:`tbkit.read_dask`): one partition per run, read by its task.

The runs are discovered on the caller's side (listings only, no data); each partition is
one run, read by a task with :func:`tbkit.read` on that run alone, so a cluster's workers
read in parallel and only the frames travel. Columns and dtypes are those of the pandas
frame of the same kind (``run`` and ``tag`` categorical, with categories unknown to Dask
until computed).
"""

from __future__ import annotations

import glob as globbing
import os
import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError
from tbkit.reader.discovery import checked_logdir, discover_runs
from tbkit.reader.index import NameSpec, name_filter
from tbkit.record import storage

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["dask_frame", "expand_logdirs"]

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


def read_run_frame(
    part: tuple[str, str, str],
    kind: str,
    reader: Reader,
    tags: NameSpec,
    purge_orphaned_data: bool,
    dtypes: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The ``kind`` frame of one run, ``part`` = ``(logdir, run, name)``, named ``name`` (a task).

    An empty frame takes ``dtypes`` (the first partition's), which its empty columns could
    not show (an empty text column is ``object``, a filled one ``str``).
    """
    import pandas as pd

    logdir, run, name = part
    where = logdir if run == "." else storage.join(logdir, *run.split("/"))
    frame = reader(where, runs=["."], tags=tags, purge_orphaned_data=purge_orphaned_data).frame(kind)
    if "run" in frame.columns:
        frame["run"] = pd.Categorical([name] * len(frame))
    if frame.empty and dtypes:
        frame = frame.astype({c: t for c, t in dtypes.items() if not isinstance(t, pd.CategoricalDtype)})
    return frame


def dask_frame(
    logdirs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    kind: str,
    *,
    reader: Reader,
    runs: NameSpec = None,
    tags: NameSpec = None,
    purge_orphaned_data: bool = True,
) -> Any:
    """:func:`tbkit.read_dask`'s work: ``reader`` (:class:`tbkit.Logdir`) reads each partition's run."""
    dd = _dask_dataframe()
    wanted = name_filter(runs, "runs")
    found = expand_logdirs(logdirs)
    parts: list[tuple[str, str, str]] = []
    for logdir, prefix in zip(found, _prefixes(found), strict=True):
        for run in sorted(discover_runs(checked_logdir(logdir))):
            name = _run_name(prefix, run)
            if wanted is None or wanted(name):
                parts.append((logdir, run, name))
    import dask
    from dask.dataframe.utils import clear_known_categories

    if not parts:  # the columns and dtypes of an empty frame of the kind
        meta = read_run_frame((_empty_logdir(), ".", "."), kind, reader, tags, purge_orphaned_data).iloc[:0]
    else:  # the first run's: its filled columns show their dtypes (str, not object)
        meta = read_run_frame(parts[0], kind, reader, tags, purge_orphaned_data).iloc[:0]
    meta = clear_known_categories(meta)
    dtypes = meta.dtypes.to_dict()
    # Dask would turn object columns into strings; these hold arrays and bytes, as in pandas.
    with dask.config.set({"dataframe.convert-string": False}):
        if not parts:
            return dd.from_pandas(meta, npartitions=1)
        return dd.from_map(
            lambda part: read_run_frame(part, kind, reader, tags, purge_orphaned_data, dtypes),
            parts,
            meta=meta,
            enforce_metadata=False,
        )


def _empty_logdir() -> str:
    """An empty ``memory://`` logdir, for the columns of an empty result."""
    import fsspec

    path = "/tbkit-empty-logdir"
    fsspec.filesystem("memory").makedirs(path, exist_ok=True)
    return f"memory://{path}"
