"""Logdirs as Dask DataFrames, computed on a real dask.distributed cluster on loopback."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit import read_dask
from tbkit.errors import InvalidArgumentError, MissingDependencyError
from tbkit.reader.distributed import expand_logdirs
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")


@pytest.fixture(scope="module")
def cluster_client() -> Iterator[object]:
    """Two single-threaded worker processes on 127.0.0.1, no dashboard."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _write(root: Path, run: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with tbkit.SummaryWriter(str(root / run)) as w:
        for step in range(20):
            w.add_scalar("loss", float(rng.normal()), step)
            w.add_scalar("acc", float(rng.uniform()), step)
            if step % 5 == 0:
                w.add_histogram("weights", rng.normal(size=100), step)
                w.add_text("note", f"step {step}", step)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in a fixed order, categories as strings: what two equal frames share."""
    out = frame.copy()
    for column in ("run", "tag"):
        out[column] = out[column].astype(str)
    return out.sort_values(["run", "tag", "step"], kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dask-logdir")
    for i, run in enumerate(("a", "b", "nested/c")):
        _write(root, run, i)
    _write(root, ".", 9)  # the logdir's own run
    return root


@pytest.mark.parametrize("kind", ["scalars", "histograms", "text"])
def test_equals_the_pandas_frame_on_a_cluster(logdir: Path, kind: str, cluster_client: object) -> None:
    frame = read_dask(str(logdir), kind, runs_per_partition=1)
    expected = tbkit.read(str(logdir)).frame(kind)
    assert frame.npartitions == 4  # one per run
    assert list(frame.columns) == list(expected.columns)
    assert frame.dtypes.to_dict() == {
        name: dtype if not isinstance(dtype, pd.CategoricalDtype) else frame.dtypes[name]
        for name, dtype in expected.dtypes.items()
    }
    assert all(isinstance(frame.dtypes[c], pd.CategoricalDtype) for c in ("run", "tag"))
    got = frame.compute()  # on the cluster: the client made itself the default
    left, right = _plain(got), _plain(expected)
    if kind == "histograms":
        for column in ("edges", "counts"):
            assert all(np.array_equal(x, y) for x, y in zip(left.pop(column), right.pop(column), strict=True))
    pd.testing.assert_frame_equal(left, right)


def test_several_logdirs_and_a_glob_name_runs_by_their_logdir(tmp_path: Path) -> None:
    for exp in ("exp1", "exp2"):
        _write(tmp_path / exp, "train", 0)
    frame = read_dask(str(tmp_path / "exp*")).compute(scheduler="sync")
    assert sorted(frame["run"].astype(str).unique()) == ["exp1/train", "exp2/train"]
    listed = read_dask([str(tmp_path / "exp1"), str(tmp_path / "exp2")], runs=["exp2/train"])
    assert listed.npartitions == 1
    assert set(listed.compute(scheduler="sync")["run"].astype(str)) == {"exp2/train"}
    assert expand_logdirs(str(tmp_path / "nothing-*")) == []
    empty = read_dask(str(tmp_path / "nothing-*")).compute()
    assert empty.empty and list(empty.columns) == ["run", "tag", "step", "wall_time", "value"]


def test_without_dask_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch, logdir: Path) -> None:
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(MissingDependencyError, match=r"tbkit\[dask\]"):
        read_dask(str(logdir))


def test_partitions_of_several_runs_equal_the_pandas_frame(logdir: Path, cluster_client: object) -> None:
    frame = read_dask(str(logdir), "scalars", runs_per_partition=3)
    assert frame.npartitions == 2  # 4 runs, 3 a partition
    expected = tbkit.read(str(logdir)).scalars()
    pd.testing.assert_frame_equal(_plain(frame.compute()), _plain(expected))
    assert tbkit.read(str(logdir)).to_dask(runs_per_partition=1).npartitions == 4


def test_several_runs_a_partition_keep_their_names_under_each_logdir(tmp_path: Path) -> None:
    for exp in ("exp1", "exp2"):
        for run in ("train", "eval", "test/x"):
            _write(tmp_path / exp, run, 0)
    frame = read_dask(str(tmp_path / "exp*"), runs_per_partition=2)
    assert frame.npartitions == 4  # two a partition, never two logdirs' runs in one
    got = frame.compute(scheduler="sync")
    names = [f"{exp}/{run}" for exp in ("exp1", "exp2") for run in ("eval", "test/x", "train")]
    assert sorted(got["run"].astype(str).unique()) == names
    assert got.groupby("run", observed=True).size().to_dict() == dict.fromkeys(names, 40)


def test_the_tasks_list_nothing_on_s3(s3: S3Server, tmp_path: Path) -> None:  # noqa: F811
    """Discovery is the caller's, once: each task is handed its runs' files and sizes, and reads
    each object with one ranged GET (before, every task listed and checked its run again)."""
    import s3fs

    for run in ("a", "b", "c", "d"):
        _write(tmp_path / "logs", run, 0)
    client = s3fs.S3FileSystem(skip_instance_cache=True)
    for file in (tmp_path / "logs").rglob("*tfevents*"):
        client.pipe_file(f"tbkit-test/logs/{file.parent.name}/{file.name}", file.read_bytes())
    frame = read_dask("s3://tbkit-test/logs", runs_per_partition=2)
    mark = s3.mark()
    got = frame.compute(scheduler="sync")
    assert s3.counts(mark) == {"RANGED_GET": 4}  # one per event file; no LIST, no HEAD
    assert len(got) == 4 * 40


def test_runs_per_partition_must_be_positive(logdir: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="runs_per_partition"):
        read_dask(str(logdir), runs_per_partition=0)


def test_by_default_runs_are_grouped_by_their_bytes(logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tbkit.reader import distributed as dist

    assert read_dask(str(logdir)).npartitions == 1  # four small runs: one task
    total = sum(p.stat().st_size for p in logdir.rglob("*tfevents*"))
    monkeypatch.setattr(dist, "PARTITION_BYTES", total // 2 + 1)  # two partitions' worth: two equal shares
    parts = dist._parts([str(logdir)], None, None)
    assert len(parts) == 2
    assert [name for _, names, _ in parts for name in names] == [".", "a", "b", "nested/c"]  # in order
    monkeypatch.setattr(dist, "PARTITION_BYTES", 1)
    assert [list(names) for _, names, _ in dist._parts([str(logdir)], None, None)] == [
        [r] for r in (".", "a", "b", "nested/c")
    ]
