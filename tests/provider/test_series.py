"""SeriesProvider over a logdir: its listings and reads agree with the frames and the interface's defaults."""

from __future__ import annotations

import numpy as np

import tbkit
from tbkit.provider import DataClass, DataProvider, RunTagFilter


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
