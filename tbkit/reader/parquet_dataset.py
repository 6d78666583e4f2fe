"""Frames as Hive-partitioned Parquet datasets: ``<path>/run=<run>/part-0.parquet``.

What DuckDB (``read_parquet('<path>/**/*.parquet', hive_partitioning = true)``), Dask
(``dd.read_parquet``), Polars (``pl.scan_parquet(..., hive_partitioning=True)``) and Spark
(``spark.read.parquet``) read directly, written to a local path or to any fsspec URL
(``s3://…``). Partition values are written URI-encoded (a run ``a/b`` is the directory
``run=a%2Fb``), as pyarrow and the readers above decode them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError
from tbkit.record import storage

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["arrow_table", "write_partitioned"]


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", feature="Parquet export") from exc
    return pa


def arrow_column(column: pd.Series) -> Any:
    """One frame column as an Arrow array: arrays become lists, bytes binary, categories dictionaries.

    A column of cells Arrow cannot type alike (mixed kinds) becomes JSON text. ``tbkit
    export`` writes its Parquet files with the same columns.
    """
    pa = _pyarrow()
    if column.dtype != object:
        return pa.Array.from_pandas(column)
    try:
        return pa.array(column.tolist(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        from tbkit.cli._cells import to_json_text

        return pa.array([None if v is None else to_json_text(v) for v in column.tolist()], type=pa.string())


def arrow_table(frame: pd.DataFrame) -> Any:
    """``frame`` as an Arrow table, column by column (:func:`arrow_column`)."""
    pa = _pyarrow()
    return pa.table({str(name): arrow_column(frame[name]) for name in frame.columns})


def _filesystem(path: str) -> tuple[Any, str]:
    """An Arrow filesystem and the path inside it: local paths as they are, URLs through fsspec."""
    if storage.is_local(path):
        return None, path[len("file://") :] if path.startswith("file://") else path
    import fsspec
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    fs, inner = fsspec.core.url_to_fs(path)
    return PyFileSystem(FSSpecHandler(fs)), inner


def write_partitioned(frame: pd.DataFrame, path: str, partition_by: Sequence[str]) -> None:
    """Write ``frame`` under ``path`` as a Hive-partitioned Parquet dataset.

    Args:
        frame: A tbkit frame (any kind).
        path: The dataset's directory, local or an fsspec URL; files already there under
            the same partitions are replaced, others are left.
        partition_by: Columns whose values name the directories, outermost first (e.g.
            ``["run"]``, or ``["run", "tag"]``).

    Raises:
        InvalidArgumentError: A partition column is not in the frame, or no column would
            be left in the files.
        MissingDependencyError: pyarrow is not installed.

    Example:
        >>> import tbkit  # doctest: +SKIP
        >>> write_partitioned(tbkit.read("runs").scalars(), "scalars.parquet", ["run"])  # doctest: +SKIP
    """
    keys = list(partition_by)
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise InvalidArgumentError(
            f"cannot partition by {missing}: the frame's columns are {list(frame.columns)}"
        )
    if not keys or len(keys) >= len(frame.columns):
        raise InvalidArgumentError("partition by at least one column and leave at least one in the files")
    pa = _pyarrow()
    import pyarrow.dataset as ds

    keyed = frame.astype({k: str for k in keys})  # directory names are text, whatever the column
    table = arrow_table(keyed)
    filesystem, base = _filesystem(path)
    partitioning = ds.partitioning(pa.schema([table.schema.field(k) for k in keys]), flavor="hive")
    ds.write_dataset(
        table,
        base,
        format="parquet",
        partitioning=partitioning,
        filesystem=filesystem,
        basename_template="part-{i}.parquet",
        existing_data_behavior="delete_matching",
    )
