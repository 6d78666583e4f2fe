"""``tbkit export --format parquet --partition-by run``: Hive-partitioned datasets per kind, read
back by DuckDB and Dask."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tests.cli._logdirs import run_tbkit

duckdb = pytest.importorskip("duckdb")
RUNS = ("a", "b/c", "with space")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("partitioned-export")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(8):
                w.add_scalar("loss", step + i * 0.5, step)
                w.add_scalar("acc", 1.0 / (step + 1), step)
                w.add_histogram("weights", np.linspace(0, 1, 50) + step, step)
                w.add_text("note", f"run {run} step {step}", step)
    return root


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in ("run", "tag"):
        out[column] = out[column].astype(str)
    return out.sort_values(["run", "tag", "step"]).reset_index(drop=True)


def _export(logdir: Path, out: Path, *args: str) -> dict:
    result = run_tbkit("export", "--logdir", str(logdir), "-o", str(out), *args)
    assert result.returncode == 0, result.stderr
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def test_each_kind_is_a_run_partitioned_dataset_duckdb_and_dask_read(logdir: Path, tmp_path: Path) -> None:
    import dask.dataframe as dd

    manifest = _export(logdir, tmp_path, "--format", "parquet", "--partition-by", "run")
    entry = manifest["kinds"]["scalars"]
    assert entry["file"] == "scalars/" and entry["partition_by"] == ["run"]
    assert sorted(p.name for p in (tmp_path / "scalars").iterdir()) == [
        "run=a",
        "run=b%2Fc",
        "run=with%20space",
    ]
    assert not (tmp_path / "scalars.parquet").exists()
    ld = tbkit.read(str(logdir))
    for kind in ("scalars", "text"):
        expected = _sorted(ld.frame(kind))
        query = f"SELECT * FROM read_parquet('{tmp_path / kind}/**/*.parquet', hive_partitioning = true)"
        from_duckdb = _sorted(duckdb.sql(query).df())[expected.columns.tolist()]
        pd.testing.assert_frame_equal(from_duckdb, expected, check_dtype=False)
        from_dask = _sorted(dd.read_parquet(str(tmp_path / kind)).compute())[expected.columns.tolist()]
        pd.testing.assert_frame_equal(from_dask, expected, check_dtype=False)
        assert manifest["kinds"][kind]["rows"] == len(expected)
    source = f"read_parquet('{tmp_path}/histograms/**/*.parquet', hive_partitioning = true)"
    rows = duckdb.sql(f"SELECT step, counts FROM {source} WHERE run = 'b/c' ORDER BY step").fetchall()
    hist = ld.histograms().query("run == 'b/c'").sort_values("step")
    assert [r[0] for r in rows] == hist["step"].tolist()
    assert all(np.array_equal(r[1], want) for r, want in zip(rows, hist["counts"], strict=True))


def test_partitioning_is_for_parquet_only(logdir: Path, tmp_path: Path) -> None:
    result = run_tbkit(
        "export", "--logdir", str(logdir), "-o", str(tmp_path), "--format", "csv", "--partition-by", "run"
    )
    assert result.returncode != 0
    assert "--format parquet" in result.stderr
