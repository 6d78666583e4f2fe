"""Hive-partitioned Parquet datasets, read back by DuckDB and Dask, locally and on S3."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit.errors import InvalidArgumentError
from tbkit.reader.parquet_dataset import write_partitioned
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

duckdb = pytest.importorskip("duckdb")
RUNS = ("a", "b/c", "with space")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> tbkit.Logdir:
    root = tmp_path_factory.mktemp("parquet-logdir")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(6):
                w.add_scalar("loss", step + i * 0.5, step)
                w.add_scalar("acc", 1.0 / (step + 1), step)
                w.add_histogram("weights", np.linspace(0, 1, 50) + step, step)
    return tbkit.read(str(root))


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in ("run", "tag"):
        out[column] = out[column].astype(str)
    return out.sort_values(["run", "tag", "step"]).reset_index(drop=True)


def _same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Read-back rows equal the frame's, in its column order (dtypes are each reader's own)."""
    pd.testing.assert_frame_equal(_sorted(got)[expected.columns.tolist()], expected, check_dtype=False)


def test_duckdb_and_dask_read_a_run_partitioned_dataset(logdir: tbkit.Logdir, tmp_path: Path) -> None:
    import dask.dataframe as dd

    out = tmp_path / "scalars"
    write_partitioned(logdir.scalars(), str(out), ["run"])
    assert sorted(p.name for p in out.iterdir()) == ["run=a", "run=b%2Fc", "run=with%20space"]
    expected = _sorted(logdir.scalars())
    query = f"SELECT * FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true)"
    from_duckdb = duckdb.sql(query).df()
    pd.testing.assert_frame_equal(
        _sorted(from_duckdb)[expected.columns.tolist()], expected, check_dtype=False
    )
    from_dask = dd.read_parquet(str(out)).compute()
    _same(from_dask, expected)


def test_arrays_become_lists_and_two_levels(logdir: tbkit.Logdir, tmp_path: Path) -> None:
    out = tmp_path / "histograms"
    write_partitioned(logdir.histograms(), str(out), ["run", "tag"])
    assert (out / "run=a" / "tag=weights" / "part-0.parquet").is_file()
    rows = duckdb.sql(
        f"SELECT run, step, edges, counts FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true) "
        "WHERE run = 'b/c' ORDER BY step"
    ).fetchall()
    expected = logdir.histograms().query("run == 'b/c'").sort_values("step")
    assert [r[1] for r in rows] == expected["step"].tolist()
    for (_, _, edges, counts), want_edges, want_counts in zip(
        rows, expected["edges"], expected["counts"], strict=True
    ):
        assert np.array_equal(edges, want_edges) and np.array_equal(counts, want_counts)


def test_rewriting_replaces_the_partitions_written(logdir: tbkit.Logdir, tmp_path: Path) -> None:
    out = str(tmp_path / "again")
    write_partitioned(logdir.scalars(), out, ["run"])
    write_partitioned(logdir.scalars(), out, ["run"])  # not twice the rows
    count = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true)")
    assert count.fetchall() == [(len(logdir.scalars()),)]


def test_bad_partition_columns(logdir: tbkit.Logdir, tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="cannot partition by"):
        write_partitioned(logdir.scalars(), str(tmp_path / "x"), ["nope"])
    with pytest.raises(InvalidArgumentError, match="at least one"):
        write_partitioned(logdir.scalars(), str(tmp_path / "x"), [])


def test_to_an_object_store(logdir: tbkit.Logdir, s3: S3Server) -> None:  # noqa: F811
    import dask.dataframe as dd
    import s3fs

    url = "s3://tbkit-test/datasets/scalars"
    write_partitioned(logdir.scalars(), url, ["run"])
    assert s3.counts()["PUT"] >= len(RUNS)
    expected = _sorted(logdir.scalars())
    from_dask = dd.read_parquet(url).compute()  # s3fs finds the server by AWS_ENDPOINT_URL
    _same(from_dask, expected)
    con = duckdb.connect()
    con.register_filesystem(s3fs.S3FileSystem(skip_instance_cache=True))  # DuckDB reads through fsspec
    query = f"SELECT * FROM read_parquet('{url}/**/*.parquet', hive_partitioning = true)"
    from_duckdb = con.sql(query).df()
    pd.testing.assert_frame_equal(
        _sorted(from_duckdb)[expected.columns.tolist()], expected, check_dtype=False
    )


def test_logdir_to_parquet_partitioned_and_to_dask(logdir: tbkit.Logdir, tmp_path: Path) -> None:
    out = tmp_path / "by-run"
    logdir.to_parquet(str(out), partition_by="run")
    assert sorted(p.name for p in out.iterdir()) == ["run=a", "run=b%2Fc", "run=with%20space"]
    got = duckdb.sql(f"SELECT * FROM read_parquet('{out}/**/*.parquet', hive_partitioning = true)").df()
    _same(got, _sorted(logdir.scalars()))
    single = tmp_path / "one.parquet"
    logdir.to_parquet(str(single))  # without partition_by: one file, as before
    assert single.is_file()
    frame = tbkit.read(logdir.path, runs=["a"]).to_dask("scalars")
    assert frame.npartitions == 1
    _same(frame.compute(scheduler="sync"), _sorted(logdir.scalars().query("run == 'a'")))
