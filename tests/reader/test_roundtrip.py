"""Everything tbkit's SummaryWriter writes comes back equal through tbkit.read."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tbkit
from tbkit.plugins.histograms.legacy import default_edges


@pytest.fixture
def logdir(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=1000)
    image = rng.integers(0, 255, size=(3, 8, 5), dtype=np.uint8)
    clip = np.sin(np.linspace(0, 20, 800))
    with tbkit.SummaryWriter(str(tmp_path / "train")) as w:
        for step in range(50):
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_scalar("acc/float", step / 7.0, step, double_precision=True)  # ignored, as in torch
            with pytest.warns(UserWarning, match="float64"):
                w.add_scalar("acc/double", step / 7.0, step, new_style=True, double_precision=True)
        w.add_scalar("special", float("nan"), 0)
        w.add_scalar("special", float("inf"), 1)
        w.add_scalar("special", -float("inf"), 2)
        w.add_scalar("special", 1.5, 2**63 - 1)
        w.add_histogram("weights", data, 3)
        w.add_image("picture", image, 4)
        w.add_audio("sound", clip, 5, sample_rate=8000)
        w.add_text("note", "hello *world*", 6)
        w.add_text("table", [["a", "b"], ["c", "d"]], 7)
        w.add_tensor("raw", np.arange(6, dtype=np.int16).reshape(2, 3), 8)
    with tbkit.SummaryWriter(str(tmp_path / "eval" / "ünï")) as w:
        w.add_scalar("tag with ✓ unicode", 2.0, 1)
    return tmp_path, data, image, clip


def test_scalars_round_trip(logdir):
    path, *_ = logdir
    df = tbkit.read(str(path)).scalars()
    assert list(df.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert str(df["step"].dtype) == "int64" and str(df["value"].dtype) == "float64"
    assert str(df["run"].dtype) == "category" and str(df["tag"].dtype) == "category"
    loss = df[(df.run == "train") & (df.tag == "loss")]
    assert loss["step"].tolist() == list(range(50))
    np.testing.assert_array_equal(loss["value"].to_numpy(), np.float32(1.0 / (np.arange(50) + 1)))
    acc = df[df.tag == "acc/double"]
    assert acc["value"].tolist() == [s / 7.0 for s in range(50)]  # double precision kept exactly
    single = df[df.tag == "acc/float"]  # a float32 simple_value
    np.testing.assert_array_equal(single["value"].to_numpy(), np.float32(np.arange(50) / 7.0))
    special = df[df.tag == "special"]
    values = special["value"].tolist()
    assert math.isnan(values[0]) and values[1:] == [math.inf, -math.inf, 1.5]
    assert special["step"].tolist() == [0, 1, 2, 2**63 - 1]
    uni = df[df.tag == "tag with ✓ unicode"]
    assert uni["run"].tolist() == ["eval/ünï"] and uni["value"].tolist() == [2.0]


def test_histogram_round_trip(logdir):
    path, data, _, _ = logdir
    h = tbkit.read(str(path)).histograms()
    assert len(h) == 1 and h["step"].tolist() == [3]
    # torch's HistogramProto over TF1's default edges, read back as TensorBoard migrates it:
    # the non-empty buckets only, from min to max.
    counts, edges = np.histogram(data, default_edges())
    filled = np.flatnonzero(counts)
    first, last = filled[0], filled[-1]
    expected_edges = np.concatenate([[data.min()], edges[first + 1 : last + 1], [data.max()]])
    np.testing.assert_allclose(h["edges"][0], expected_edges, rtol=1e-6)
    np.testing.assert_array_equal(h["counts"][0], counts[first : last + 1])
    assert h["counts"][0].sum() == len(data)


def test_image_round_trip(logdir):
    path, _, image, _ = logdir
    ld = tbkit.read(str(path))
    rows = ld.images()
    assert rows[["step", "index", "width", "height", "format"]].values.tolist() == [[4, 0, 5, 8, "png"]]
    np.testing.assert_array_equal(ld.decode_image(rows.iloc[0]), image.transpose(1, 2, 0))


def test_audio_round_trip(logdir):
    path, _, _, clip = logdir
    ld = tbkit.read(str(path))
    rows = ld.audio()
    row = rows.iloc[0]
    assert (row["sample_rate"], row["num_channels"], row["length_frames"]) == (8000, 1, 800)
    samples, rate = ld.decode_audio(row)
    assert rate == 8000 and samples.shape == (800, 1)
    np.testing.assert_allclose(samples[:, 0], clip, atol=1 / 16000)


def test_text_and_tensor_round_trip(logdir):
    path, *_ = logdir
    ld = tbkit.read(str(path))
    text = ld.text().set_index("tag")
    assert text.loc["note/text_summary", "text"] == "hello *world*"  # torch's tag
    assert text.loc["table/text_summary", "text"].tolist() == [["a", "b"], ["c", "d"]]
    tensors = ld.tensors()
    assert tensors["tag"].tolist() == ["raw"]
    value = tensors["value"][0]
    assert value.dtype == np.int16 and value.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_tags_and_runs_frames(logdir):
    path, *_ = logdir
    ld = tbkit.read(str(path))
    tags = ld.tags().set_index(["run", "tag"])
    assert tags.loc[("train", "loss"), "plugin"] == "scalars"
    assert tags.loc[("train", "loss"), "data_class"] == "scalar"
    assert tags.loc[("train", "loss"), ["count", "first_step", "last_step"]].tolist() == [50, 0, 49]
    assert tags.loc[("train", "picture"), "data_class"] == "blob_sequence"
    runs = ld.runs()
    assert runs["run"].tolist() == ["eval/ünï", "train"]
    assert all(len(files) == 1 for files in runs["event_files"]) and runs["problems"].tolist() == [0, 0]


def test_summary_iterator_yields_what_was_written(logdir):
    path, *_ = logdir
    (event_file,) = (path / "eval" / "ünï").iterdir()
    events = list(tbkit.summary_iterator(str(event_file)))
    assert events[0].file_version == "brain.Event:2"
    assert [(e.step, e.summary.value[0].tag) for e in events[1:]] == [(1, "tag with ✓ unicode")]


def test_pivot_gives_one_column_per_tag(logdir):
    path, *_ = logdir
    wide = tbkit.read(str(path), runs=["train"], tags=["loss", "acc/double"]).scalars(pivot=True)
    assert list(wide.columns) == ["run", "step", "acc/double", "loss"]
    assert len(wide) == 50 and wide["loss"].iloc[1] == np.float32(0.5)


def test_export_parquet_and_csv(logdir, tmp_path):
    import pandas as pd

    path, *_ = logdir
    ld = tbkit.read(str(path))
    ld.to_parquet(str(tmp_path / "s.parquet"))
    back = pd.read_parquet(tmp_path / "s.parquet")
    pd.testing.assert_frame_equal(back, ld.scalars(), check_categorical=False)
    ld.to_csv(str(tmp_path / "h.csv"), kind="histograms")
    text = (tmp_path / "h.csv").read_text()
    assert text.startswith("run,tag,step,wall_time,edges,counts") and "[" in text
    ld.to_parquet(str(tmp_path / "i.parquet"), kind="images")
    assert pd.read_parquet(tmp_path / "i.parquet")["data"][0][:4] == b"\x89PNG"
