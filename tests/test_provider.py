"""The DataProvider interface: value types, filters, downsampling, the dict double and the logdir one."""

from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np
import pytest

import tbkit
from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.provider import (
    DataClass,
    DataProvider,
    InMemoryProvider,
    RunTagFilter,
    ScalarDatum,
    TensorDatum,
    downsample_indices,
)


def test_every_method_has_at_most_one_positional_argument():
    for name, fn in inspect.getmembers(DataProvider, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = list(inspect.signature(fn).parameters.values())[1:]
        positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert len(positional) <= 1, name


def test_values_are_frozen():
    datum = ScalarDatum(1, 2.0, 3.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        datum.value = 4.0  # type: ignore[misc]
    assert datum == ScalarDatum(1, 2.0, 3.0) and datum != ScalarDatum(1, 2.0, 3.5)
    assert TensorDatum(1, 2.0, np.array([np.nan, 1.0])) == TensorDatum(1, 2.0, np.array([np.nan, 1.0]))
    assert TensorDatum(1, 2.0, np.array([1, 2])) != TensorDatum(1, 2.0, np.array([1, 3]))
    assert TensorDatum(1, 2.0, np.array([1, 2])) != TensorDatum(2, 2.0, np.array([1, 2]))


def test_run_tag_filter():
    f = RunTagFilter(runs=["a"], tags=["x", "y"])
    assert f.matches("a", "x") and not f.matches("b", "x") and not f.matches("a", "z")
    assert RunTagFilter().matches("any", "thing")
    with pytest.raises(InvalidArgumentError):
        RunTagFilter(runs="a")


@pytest.mark.parametrize("n,k", [(10, 3), (1000, 100), (5, 5), (5, 50), (7, 1)])
def test_downsample_keeps_last_is_sorted_and_deterministic(n, k):
    steps = np.arange(n) * 3
    idx = downsample_indices(steps, k)
    assert len(idx) == min(n, k) and idx[-1] == n - 1
    assert np.all(np.diff(idx) > 0)
    assert np.array_equal(idx, downsample_indices(steps.copy(), k))


def test_downsample_zero_and_none():
    assert downsample_indices(np.arange(4), 0).tolist() == []
    assert downsample_indices(np.arange(4), None).tolist() == [0, 1, 2, 3]
    with pytest.raises(InvalidArgumentError):
        downsample_indices(np.arange(4), -1)


def test_downsample_keeps_same_steps_across_series_of_a_run():
    steps = np.arange(0, 5000, 5)
    data = {
        "run": {
            "a": {"points": [(int(s), 0.0, float(s)) for s in steps]},
            "b": {"points": [(int(s), 1.0, -float(s)) for s in steps]},
        }
    }
    got = InMemoryProvider(data).read_scalars("scalars", downsample=50)["run"]
    assert [d.step for d in got["a"]] == [d.step for d in got["b"]]
    assert len(got["a"]) == 50 and got["a"][-1].step == 4995
    chosen = np.array([d.step for d in got["a"]])
    assert chosen.min() < 1000 and chosen.max() > 4000  # spread over the series


def test_in_memory_provider_kinds_and_blobs():
    png = b"\x89PNG..."
    provider = InMemoryProvider(
        {
            "train": {
                "loss": {"points": [(1, 10.0, 0.5), (2, 11.0, 0.25)], "display_name": "Loss"},
                "img": {"plugin": "images", "points": [(1, 10.0, [b"2", b"1", png])]},
                "h": {"plugin": "histograms", "points": [(3, 12.0, np.zeros((2, 3)))]},
            }
        },
        start_times={"train": 9.0, "empty": 1.0},
    )
    assert [r.run_name for r in provider.list_runs()] == ["empty", "train"]
    assert provider.list_plugins() == ["histograms", "images", "scalars"]
    series = provider.list_scalars("scalars")["train"]["loss"]
    assert (series.max_step, series.last_value, series.display_name) == (2, 0.25, "Loss")
    assert provider.read_last_scalars("scalars")["train"]["loss"] == ScalarDatum(2, 11.0, 0.25)
    assert provider.read_tensors("histograms")["train"]["h"][0].numpy.shape == (2, 3)
    assert provider.list_blob_sequences("images")["train"]["img"].max_length == 3
    (datum,) = provider.read_blob_sequences("images")["train"]["img"]
    keys = [ref.blob_key for ref in datum.values]
    assert all(re.fullmatch(r"[A-Za-z0-9._~-]+", k) for k in keys)
    assert provider.read_blob(keys[2]) == png
    with pytest.raises(NotFoundError):
        provider.read_blob("nonsense")
    assert provider.read_scalars("scalars", run_tag_filter=RunTagFilter(tags=["nope"])) == {}


def test_logdir_provider_matches_the_frames(tmp_path):
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        for s in range(1, 301):
            w.add_scalar("loss", 1.0 / s, s)
            w.add_scalar("acc", s / 300.0, s)
        w.add_histogram("w", np.arange(10.0), 1)
        w.add_image("im", np.zeros((3, 4, 4), dtype=np.uint8), 1)
    ld = tbkit.read(str(tmp_path))
    provider = ld.provider
    assert provider.list_plugins() == ["histograms", "images", "scalars"]
    assert [r.run_name for r in provider.list_runs()] == ["run"]
    full = provider.read_scalars("scalars")["run"]
    assert [d.value for d in full["loss"]] == ld.scalars().query("tag == 'loss'")["value"].tolist()
    small = provider.read_scalars("scalars", downsample=20)["run"]
    assert [d.step for d in small["loss"]] == [d.step for d in small["acc"]] and small["loss"][-1].step == 300
    assert len(small["loss"]) == 20
    hist = provider.read_tensors("histograms")["run"]["w"][0].numpy
    assert hist.shape[1] == 3 and hist[:, 2].sum() == 10
    (datum,) = provider.read_blob_sequences("images")["run"]["im"]
    assert provider.read_blob(datum.values[2].blob_key)[:4] == b"\x89PNG"
    assert provider.list_scalars("scalars")["run"]["acc"].max_step == 300
    assert provider.list_tensors("histograms")["run"]["w"].max_step == 1
    assert DataClass.SCALAR.value == "scalar"


def test_read_scalar_extremes_are_over_every_finite_point(tmp_path):
    values = np.linspace(0.0, 1.0, 5000)
    values[[7, 4321]] = [-3.0, 9.0]  # spikes a downsampled read could drop
    values[[10, 11, 12]] = [np.nan, np.inf, -np.inf]
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        for step, v in enumerate(values):
            w.add_scalar("loss", float(v), step)
        w.add_scalar("bad", float("nan"), 0)
        w.add_scalar("acc", 0.5, 0)
    provider = tbkit.read(str(tmp_path)).provider
    found = provider.read_scalar_extremes("scalars", run_tag_filter=RunTagFilter(tags=["loss", "bad"]))
    assert found == {"run": {"loss": (-3.0, 9.0, 5000), "bad": (None, None, 1)}}
    # The base class' default (over read_scalars) agrees with the SeriesProvider's numpy path.
    assert DataProvider.read_scalar_extremes(provider, "scalars") == provider.read_scalar_extremes("scalars")
