"""``tbkit.read_dask``: logdirs as one Dask DataFrame, each partition a group of runs.

The work is :func:`tbkit.reader.distributed.dask_frame`'s; this module gives it
:class:`~tbkit.reader.logdir.Logdir` as the reader of each partition (kept apart so that
neither of those modules imports the other).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from tbkit.plugins.scalars.metadata import PLUGIN_NAME as SCALARS
from tbkit.reader.distributed import dask_frame
from tbkit.reader.logdir import Logdir
from tbkit.reader.names import NameSpec

__all__ = ["read_dask"]


def read_dask(
    logdirs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    kind: str = SCALARS,
    *,
    runs: NameSpec = None,
    tags: NameSpec = None,
    purge_orphaned_data: bool = True,
    runs_per_partition: int | None = None,
) -> Any:
    """Read logdirs as one Dask DataFrame of ``kind``, each partition a group of runs.

    The runs are discovered here, once (listings only); each partition's task is handed
    its runs' event files and reads them where Dask runs it, listing nothing.

    Args:
        logdirs: A logdir (path or fsspec URL), a glob of them (``s3://bucket/exp-*``), or a
            list of either. With several logdirs, runs are named ``<part>/<run>``, ``<part>``
            being each logdir's path after the part they all share.
        kind: A frame kind of :meth:`tbkit.Logdir.frame` (``scalars``, ``histograms`` ...).
        runs: Only runs whose name (as named in the result) fully matches this regex, or is
            in this list.
        tags: Only tags whose name fully matches this regex, or is in this list.
        purge_orphaned_data: As :func:`tbkit.read`.
        runs_per_partition: Runs read by each task. By default runs are grouped by the
            size of their event files (a run is never split), in equal shares of about 64 MB,
            at least one a thread of the default scheduler (a ``dask.distributed`` client's
            workers, else the CPU count) and in whole rounds of its threads, at most 64 (see
            :func:`~tbkit.reader.distributed.partition_count`): 2,000 runs of 27 kB on 2
            single-threaded workers make 2 partitions of 1,000.

    Returns:
        A ``dask.dataframe.DataFrame`` with the columns and dtypes of the pandas frame; its
        ``compute()`` equals the pandas frame of the same runs, row for row.

    Raises:
        MissingDependencyError: Dask is not installed (``pip install "tbkit[dask]"``).
        PathNotFoundError: A logdir does not exist.

    Example:
        >>> df = read_dask("s3://bucket/experiments/*")  # doctest: +SKIP
        >>> df.groupby(["run", "tag"], observed=True)["value"].max().compute()  # doctest: +SKIP
    """
    options = {"runs": runs, "tags": tags, "purge_orphaned_data": purge_orphaned_data}
    return dask_frame(logdirs, kind, reader=Logdir, runs_per_partition=runs_per_partition, **options)
