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


def _same_columns(a, b):
    assert list(a) == list(b)
    for run in a:
        assert list(a[run]) == list(b[run])
        for tag in a[run]:
            for x, y in zip(a[run][tag], b[run][tag], strict=True):
                assert x.dtype == y.dtype
                np.testing.assert_array_equal(x, y)


def test_scalar_columns_and_series_info_agree_with_the_defaults(tmp_path):
    with tbkit.SummaryWriter(str(tmp_path / "a")) as w:
        for s in range(50):
            w.add_scalar("loss", float("nan") if s == 7 else 1.0 / (s + 1), s)
            w.add_scalar("acc", s / 50.0, s)
        w.add_histogram("w", np.arange(10.0), 1)
        w.add_image("im", np.zeros((3, 4, 4), dtype=np.uint8), 1)
    with tbkit.SummaryWriter(str(tmp_path / "b")) as w:
        w.add_scalar("loss", 2.0, 3)
    provider = tbkit.read(str(tmp_path)).provider
    keep = lambda run, tag: tag == "loss"  # noqa: E731
    fast = provider.read_scalar_columns("scalars", keep=keep)
    assert sorted((r, t) for r in fast for t in fast[r]) == [("a", "loss"), ("b", "loss")]
    assert fast["a"]["loss"][0].dtype == np.int64 and len(fast["a"]["loss"][2]) == 50
    _same_columns(fast, DataProvider.read_scalar_columns(provider, "scalars", keep=keep))
    every = provider.read_scalar_columns("scalars")
    _same_columns(every, DataProvider.read_scalar_columns(provider, "scalars"))

    def comparable(infos):
        return [
            (i.run, i.tag, i.plugin_name, i.data_class, i.count, i.max_step, i.max_wall_time,
             i.last[:2], i.max_length, i.plugin_content, i.display_name, i.description)
            for i in sorted(infos, key=lambda i: (i.run, i.tag))
        ]  # fmt: skip

    for kwargs in [{}, {"plugin_name": "scalars", "keep": keep}, {"plugin_name": "images"}]:
        for data_class in [None, *DataClass]:
            ours = provider.series_info(data_class, **kwargs)
            default = DataProvider.series_info(provider, data_class, **kwargs)
            assert comparable(ours) == comparable(default), (data_class, kwargs)
    (image,) = DataProvider.series_info(provider, DataClass.BLOB_SEQUENCE)
    assert image.max_length == 3 and image.last[2][2][:4] == b"\x89PNG"
    only_b = lambda run, tag: run == "b"  # noqa: E731
    (loss,) = DataProvider.series_info(provider, DataClass.SCALAR, plugin_name="scalars", keep=only_b)
    assert loss.last == (3, loss.max_wall_time, 2.0)


def test_logdir_provider_reloads_through_the_interface(tmp_path):
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    provider = tbkit.read(str(tmp_path)).provider
    assert provider.read_scalars("scalars")["run"]["loss"][-1].step == 0
    before = provider.generation
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 2.0, 1)
    after = provider.reload()
    assert after == provider.generation != before
    assert provider.read_scalars("scalars")["run"]["loss"][-1].step == 1
    assert provider.reload() == after  # nothing new
