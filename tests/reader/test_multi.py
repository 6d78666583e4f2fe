"""MultiLogdirProvider: several logdirs, name prefixes, per-run loading."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import tbkit
from tbkit import SummaryWriter
from tbkit.reader.multi import MultiLogdirProvider


def _write(path: Path, tag: str = "loss", n: int = 5) -> None:
    with SummaryWriter(str(path)) as w:
        for step in range(n):
            w.add_scalar(tag, step * 2.0, step)
            w.add_image("img", np.zeros((3, 4, 4)), step)


def test_names_are_prefixed_with_several_logdirs(tmp_path: Path) -> None:
    _write(tmp_path / "x" / "a")
    _write(tmp_path / "y")  # a logdir that is itself a run
    provider = MultiLogdirProvider([("first", str(tmp_path / "x")), ("second", str(tmp_path / "y"))])
    assert provider.data_location() == f"first:{tmp_path / 'x'},second:{tmp_path / 'y'}"
    provider.reload()
    assert [r.run_name for r in provider.list_runs()] == ["first/a", "second"]
    scalars = provider.read_scalars("scalars")
    assert [p.value for p in scalars["second"]["loss"]] == [0.0, 2.0, 4.0, 6.0, 8.0]
    blobs = provider.read_blob_sequences("images")["first/a"]["img"]
    assert provider.read_blob(blobs[0].values[0].blob_key) == b"4"


def test_one_logdir_matches_tbkit_read(tmp_path: Path) -> None:
    _write(tmp_path / "a", n=7)
    _write(tmp_path / "a" / "nested", n=3)
    _write(tmp_path, n=2)  # the logdir itself is a run too: "."
    provider = MultiLogdirProvider([("", str(tmp_path))])
    provider.reload()
    reference = tbkit.read(str(tmp_path)).provider
    assert [r.run_name for r in provider.list_runs()] == [r.run_name for r in reference.list_runs()]
    assert provider.read_scalars("scalars") == reference.read_scalars("scalars")
    assert provider.list_plugins() == reference.list_plugins()


def test_runs_are_listed_before_they_are_read(tmp_path: Path) -> None:
    _write(tmp_path / "a")
    provider = MultiLogdirProvider([("", str(tmp_path))])
    assert provider.discover() == ["a"]
    assert [(r.run_name, r.start_time) for r in provider.list_runs()] == [("a", None)]
    assert provider.read_scalars("scalars") == {} and not provider.loaded
    provider.reload()
    assert provider.loaded and provider.list_runs()[0].start_time is not None
    assert len(provider.read_scalars("scalars")["a"]["loss"]) == 5


def test_generation_changes_with_new_data(tmp_path: Path) -> None:
    _write(tmp_path / "a")
    provider = MultiLogdirProvider([("", str(tmp_path))])
    first = provider.reload()
    assert provider.reload() == first
    _write(tmp_path / "a")
    assert provider.reload() != first


def test_runs_read_in_parallel_give_the_same_data(tmp_path: Path) -> None:
    for i in range(6):
        _write(tmp_path / f"run{i}", n=40 + i)
    serial = MultiLogdirProvider([("", str(tmp_path))], threads=1)
    parallel = MultiLogdirProvider([("", str(tmp_path))], threads=3)
    calls: list[int] = []
    serial.reload()
    parallel.reload(progress=lambda: calls.append(1))
    assert len(calls) == 1 + 6 + 6  # discovery, then each run's first look and full read
    assert parallel.read_scalars("scalars") == serial.read_scalars("scalars")
    assert parallel.list_blob_sequences("images") == serial.list_blob_sequences("images")
    assert [p.value for p in parallel.read_scalars("scalars")["run5"]["loss"]][-1] == 2.0 * 44


def test_multi_provider_lists_the_logdirs_without_runs(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "full" / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    (tmp_path / "empty").mkdir()
    logdirs = [("full", str(tmp_path / "full")), ("empty", str(tmp_path / "empty"))]
    provider = MultiLogdirProvider(logdirs)
    assert provider.empty_logdirs() == logdirs  # nothing discovered yet
    provider.reload()
    assert provider.empty_logdirs() == [logdirs[1]]


def test_generation_is_a_running_total_not_a_walk_over_the_runs(tmp_path: Path, monkeypatch) -> None:
    from tbkit.reader.index import LogdirIndex

    for name in "abc":
        _write(tmp_path / name)
    provider = MultiLogdirProvider([("", str(tmp_path))], threads=1)
    first = provider.reload()
    walks: list[int] = []
    real = LogdirIndex.generation.fget
    monkeypatch.setattr(LogdirIndex, "generation", property(lambda self: walks.append(1) or real(self)))
    assert [provider.generation for _ in range(50)] == [first] * 50 and walks == []
    _write(tmp_path / "b")
    assert provider.reload() > first  # each run's own generation, once per its reload
    assert len(walks) == 3


def test_series_carry_their_run_names_and_keep_sees_them(tmp_path: Path) -> None:
    _write(tmp_path / "a")
    _write(tmp_path / "b" / "c")
    provider = MultiLogdirProvider([("x", str(tmp_path))])
    provider.reload()
    assert sorted({s.run for s in provider.series()}) == ["x/a", "x/b/c"]
    kept = provider.series_info(keep=lambda run, tag: run == "x/b/c" and tag == "loss")
    assert [(i.run, i.tag, i.count) for i in kept] == [("x/b/c", "loss", 5)]


def test_the_series_plugins_are_those_a_listing_of_every_series_gives(tmp_path: Path) -> None:
    from tbkit.provider import SeriesProvider

    _write(tmp_path / "a")
    with SummaryWriter(str(tmp_path / "b")) as w:
        w.add_histogram("h", np.arange(5.0), 0)
        w.add_text("note", "hello", 0)
    provider = MultiLogdirProvider([("x", str(tmp_path)), ("y", str(tmp_path / "b"))])
    provider.reload()
    listed = SeriesProvider.series_plugins(provider)  # the base class's way: from series_info()
    assert provider.series_plugins() == listed == {"scalars", "images", "histograms", "text"}
    for _, entry in provider._ready():
        assert entry.series_plugins() == SeriesProvider.series_plugins(entry)
