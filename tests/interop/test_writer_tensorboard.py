"""tbkit's ``SummaryWriter`` read back by TensorBoard's own ``EventAccumulator``.

Every ``add_*`` method writes to ``tmp_path``; TensorBoard's readers (TF-free, through its
stub) decode the file and the values, steps, wall times, pixels, samples and text must be
the ones logged. tbkit writes the forms torch writes (TF1 ``simple_value``, ``Summary.Image``,
``Summary.Audio``, ``HistogramProto``, ``<tag>/text_summary``): where torch can make the same
call, its file is written too and must read back the same.
"""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _peers import accumulate, accumulate_plugin, decode_png, decode_wav, pcm16, tensor_values
from _same_calls import (
    HIST_EDGES,
    RESTARTED_EXPECTED,
    batch_nchw,
    figure,
    hist_values,
    images,
    sine,
    write_restarted_run,
    write_restarted_run_torch,
)
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.util import tensor_util

from tbkit import SummaryWriter
from tbkit.proto import event_pb2

pytestmark = pytest.mark.interop

WALL = 1_650_000_000.5


def _only_run(tmp_path: Path) -> Path:
    files = list(tmp_path.glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    return tmp_path


def _plugin(acc, tag: str) -> str:
    return acc.SummaryMetadata(tag).plugin_data.plugin_name


def _torch_writer(path: Path):
    """torch.utils.tensorboard's writer: what tbkit's output must read back like."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    return TorchWriter(str(path))


# -- scalars ---------------------------------------------------------------------------


def test_add_scalar_values_steps_and_wall_times(tmp_path: Path) -> None:
    import torch

    values = [0.5, 3, np.float64(-2.25), np.int32(7), torch.tensor(1.5), np.array(0.125, np.float16), "0.75"]
    with SummaryWriter(tmp_path / "tbkit") as writer:
        for step, value in enumerate(values):
            writer.add_scalar("loss", value, global_step=step * 10, walltime=WALL + step)
    with _torch_writer(tmp_path / "torch") as writer:
        for step, value in enumerate(values[:-1]):  # torch.tensor rejects a numeric string
            writer.add_scalar("loss", value, global_step=step * 10, walltime=WALL + step)
    acc = accumulate(_only_run(tmp_path / "tbkit"))
    assert acc.Tags()["scalars"] == ["loss"] and acc.Tags()["tensors"] == []  # a TF1 simple_value
    read = [(e.step, e.wall_time, e.value) for e in acc.Scalars("loss")]
    expected = [(i * 10, WALL + i, float(np.float32(float(v)))) for i, v in enumerate(values)]
    assert read == expected
    theirs = accumulate(_only_run(tmp_path / "torch"))
    assert acc.Scalars("loss")[:-1] == theirs.Scalars("loss")
    # TensorBoard's plugin loader migrates it to the scalars plugin's rank-0 float32 tensor.
    plugin = accumulate_plugin(tmp_path / "tbkit")
    assert plugin.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
    arrays = [a for _, _, a in tensor_values(plugin, "loss")]
    assert all(a.shape == () and a.dtype == np.float32 for a in arrays)
    assert [a.item() for a in arrays] == [v for _, _, v in expected]


def test_add_scalar_double_precision_and_non_finite(tmp_path: Path) -> None:
    exact = 0.1 + 1e-12  # not representable in float32
    specials = [math.nan, math.inf, -math.inf]

    def calls(writer) -> None:
        writer.add_scalar("exact", exact, 1, walltime=WALL, new_style=True, double_precision=True)
        writer.add_scalar("ignored", exact, 1, walltime=WALL, double_precision=True)  # as in torch
        writer.add_scalar("single", exact, 1, walltime=WALL)
        writer.add_scalar("tensor", exact, 1, walltime=WALL, new_style=True)
        for step, value in enumerate(specials):
            writer.add_scalar("special", value, step, walltime=WALL)
            writer.add_scalar("special64", value, step, walltime=WALL, new_style=True, double_precision=True)

    with SummaryWriter(tmp_path / "tbkit") as writer, pytest.warns(UserWarning, match="float64"):
        calls(writer)
    with _torch_writer(tmp_path / "torch") as writer:
        calls(writer)
    for run in ("tbkit", "torch"):
        acc = accumulate(_only_run(tmp_path / run))
        assert sorted(acc.Tags()["tensors"]) == ["exact", "special64", "tensor"], run
        assert sorted(acc.Tags()["scalars"]) == ["ignored", "single", "special"], run
        ((_, _, double),) = tensor_values(acc, "exact")
        assert double.dtype == np.float64 and double.item() == exact
        ((_, _, single),) = tensor_values(acc, "tensor")
        assert single.dtype == np.float32 and single.item() == float(np.float32(exact)) != exact
        assert _plugin(acc, "exact") == _plugin(acc, "tensor") == "scalars"
        for tag in ("ignored", "single"):
            assert [e.value for e in acc.Scalars(tag)] == [float(np.float32(exact))], (run, tag)
        got = [e.value for e in acc.Scalars("special")]
        assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf], run
        got = [a.item() for _, _, a in tensor_values(acc, "special64")]
        assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf], run


def test_add_scalars_writes_one_sub_run_per_key(tmp_path: Path) -> None:
    def calls(writer) -> None:
        for step in range(3):
            writer.add_scalars("a/b", {"train": step * 1.5, "val": -step}, step, walltime=WALL + step)
        writer.add_scalar("main", 1.0, 0)

    with SummaryWriter(tmp_path / "tbkit") as writer:
        calls(writer)
    with _torch_writer(tmp_path / "torch") as writer:
        calls(writer)
    for run in ("tbkit", "torch"):
        root = tmp_path / run
        subdirs = sorted(p.name for p in root.iterdir() if p.is_dir())
        assert subdirs == ["a_b_train", "a_b_val"], run
        assert accumulate(root).Tags()["scalars"] == ["main"]
        for name, expected in (("a_b_train", [0.0, 1.5, 3.0]), ("a_b_val", [0.0, -1.0, -2.0])):
            acc = accumulate(root / name)
            assert acc.Tags()["scalars"] == ["a/b"] and acc.Tags()["tensors"] == []
            read = [(e.step, e.wall_time, e.value) for e in acc.Scalars("a/b")]
            assert read == [(i, WALL + i, v) for i, v in enumerate(expected)], (run, name)


# -- histograms ------------------------------------------------------------------------


def _without_sum_squares(event: Any) -> Any:
    value = dataclasses.replace(event.histogram_value, sum_squares=0.0)
    return dataclasses.replace(event, histogram_value=value)


@pytest.mark.parametrize(
    ("data", "kwargs"),
    [
        (hist_values(), {}),
        (np.random.default_rng(3).normal(size=(40, 25)), {}),
        (np.arange(-50, 50, dtype=np.int64), {"bins": 7}),
        (np.full(9, 2.5), {}),
        (np.random.default_rng(4).normal(size=2000), {"max_bins": 20}),
        (hist_values(), {"bins": "auto"}),
    ],
    ids=["default", "normal2d", "int-bins", "constant", "max-bins", "numpy-auto"],
)
def test_add_histogram_matches_torchs_bucketing(tmp_path: Path, data, kwargs) -> None:
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_histogram("h", data, 4, walltime=WALL, **kwargs)
    with _torch_writer(tmp_path / "torch") as writer:
        writer.add_histogram("h", data, 4, walltime=WALL, **kwargs)
    acc = accumulate(_only_run(tmp_path / "tbkit"))
    assert acc.Tags()["histograms"] == ["h"]  # a TF1 HistogramProto, as torch writes
    (ours,) = acc.Histograms("h")
    (theirs,) = accumulate(_only_run(tmp_path / "torch")).Histograms("h")
    # Equal but for the sum of squares' last bits (torch's is a BLAS dot product).
    assert _without_sum_squares(ours) == _without_sum_squares(theirs)
    assert ours.histogram_value.sum_squares == pytest.approx(theirs.histogram_value.sum_squares, rel=1e-12)
    assert (ours.step, ours.wall_time) == (4, WALL)
    value = ours.histogram_value
    flat = data.reshape(-1).astype(np.float64)
    assert (value.min, value.max, value.num) == (flat.min(), flat.max(), flat.size)
    np.testing.assert_allclose([value.sum, value.sum_squares], [flat.sum(), flat @ flat])
    assert sum(value.bucket) == data.size and len(value.bucket) == len(value.bucket_limit)
    assert value.bucket[0] == 0 and value.bucket[1] > 0 and value.bucket[-1] > 0  # trimmed, one empty lead
    # The histograms plugin serves it migrated to [k, 3] rows, from min to max.
    (migrated,) = accumulate_plugin(tmp_path / "tbkit").Tensors("h")
    (torch_migrated,) = accumulate_plugin(tmp_path / "torch").Tensors("h")
    rows = tensor_util.make_ndarray(migrated.tensor_proto)
    np.testing.assert_array_equal(rows, tensor_util.make_ndarray(torch_migrated.tensor_proto))
    np.testing.assert_allclose([rows[0, 0], rows[-1, 1]], [flat.min(), flat.max()], rtol=1e-6)
    assert rows[:, 2].sum() == data.size


def test_add_histogram_with_edges(tmp_path: Path) -> None:
    data = hist_values()
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("h", data, 1, bins=HIST_EDGES, walltime=WALL)
    counts, _ = np.histogram(data, bins=HIST_EDGES)
    (event,) = accumulate(_only_run(tmp_path)).Histograms("h")
    value = event.histogram_value  # right limits, after one leading empty bucket
    assert value.bucket_limit == HIST_EDGES.tolist()
    assert value.bucket == [0.0, *counts.tolist()]
    (migrated,) = accumulate_plugin(tmp_path).Tensors("h")
    rows = tensor_util.make_ndarray(migrated.tensor_proto)
    np.testing.assert_array_equal(rows[:, 0], HIST_EDGES[:-1])  # data's min and max are 0 and 10
    np.testing.assert_array_equal(rows[:, 1], HIST_EDGES[1:])
    np.testing.assert_array_equal(rows[:, 2], counts)


def test_add_histogram_raw_keeps_every_statistic(tmp_path: Path) -> None:
    stats = {"min": -1.0, "max": 6.0, "num": 10.0, "sum": 21.5, "sum_squares": 90.25}
    limits, counts = [0.0, 2.0, 4.0, 6.0], [1.0, 4.0, 0.0, 5.0]
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram_raw(
            "raw", **stats, bucket_limits=limits, bucket_counts=counts, global_step=3, walltime=WALL
        )
    acc = accumulate(_only_run(tmp_path))
    (event,) = acc.Histograms("raw")
    assert (event.step, event.wall_time) == (3, WALL)
    value = event.histogram_value
    assert {k: getattr(value, k) for k in stats} == stats
    assert (value.bucket_limit, value.bucket) == (limits, counts)
    # And the form the histograms plugin serves: the legacy proto migrated to [k, 3] rows.
    (migrated,) = accumulate_plugin(tmp_path).Tensors("raw")
    rows = tensor_util.make_ndarray(migrated.tensor_proto)
    np.testing.assert_array_equal(rows, [[-1.0, 0.0, 1.0], [0.0, 2.0, 4.0], [2.0, 4.0, 0.0], [4.0, 6.0, 5.0]])


# -- images ----------------------------------------------------------------------------


def _image_events(path: Path, tag: str) -> list[tuple[int, float, int, int, bytes]]:
    acc = accumulate(_only_run(path))
    assert tag in acc.Tags()["images"]  # a TF1 Summary.Image, as torch writes
    return [(e.step, e.wall_time, e.width, e.height, e.encoded_image_string) for e in acc.Images(tag)]


def _images_plugin(path: Path, tag: str) -> str:
    """The plugin TensorBoard's plugin loader files the legacy image under."""
    return accumulate_plugin(path).SummaryMetadata(tag).plugin_data.plugin_name


@pytest.mark.parametrize("tag", list(images()))
def test_add_image_pixels(tmp_path: Path, tag: str) -> None:
    array, dataformats, expected = images()[tag]
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_image(tag, array, 2, walltime=WALL, dataformats=dataformats)
    with _torch_writer(tmp_path / "torch") as writer:
        writer.add_image(tag, array, 2, walltime=WALL, dataformats=dataformats)
    assert _images_plugin(tmp_path / "tbkit", tag) == "images"
    ((step, wall, width, height, png),) = _image_events(tmp_path / "tbkit", tag)
    ((*torch_head, torch_png),) = _image_events(tmp_path / "torch", tag)
    assert (step, wall, width, height) == tuple(torch_head)
    assert (step, wall) == (2, WALL)
    assert (height, width) == expected.shape[:2]
    mode = "RGBA" if expected.shape[2] == 4 else "RGB"
    np.testing.assert_array_equal(decode_png(png, mode), expected)
    np.testing.assert_array_equal(decode_png(png, mode), decode_png(torch_png, mode))


@pytest.mark.parametrize("dataformats", ["NCHW", "NHWC"])
def test_add_images_grid(tmp_path: Path, dataformats: str) -> None:
    batch = batch_nchw()  # ten 3×4×5 images
    logged = batch if dataformats == "NCHW" else batch.transpose(0, 2, 3, 1)
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_images("grid", logged, 1, walltime=WALL, dataformats=dataformats)
    with _torch_writer(tmp_path / "torch") as writer:
        writer.add_images("grid", logged, 1, walltime=WALL, dataformats=dataformats)
    ((_, _, width, height, png),) = _image_events(tmp_path / "tbkit", "grid")
    ((_, _, torch_width, torch_height, torch_png),) = _image_events(tmp_path / "torch", "grid")
    assert (height, width) == (torch_height, torch_width) == (2 * 4, 8 * 5)
    pixels = decode_png(png)
    np.testing.assert_array_equal(pixels, decode_png(torch_png))
    hwc = np.clip(batch.transpose(0, 2, 3, 1) * 255.0, 0, 255).astype(np.uint8)
    for i in range(10):
        row, col = divmod(i, 8)
        np.testing.assert_array_equal(pixels[row * 4 : row * 4 + 4, col * 5 : col * 5 + 5], hwc[i])
    assert not pixels[4:, 2 * 5 :].any()  # the rest of the second row is empty


def test_add_figure(tmp_path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    reference = figure()
    canvas = FigureCanvasAgg(reference)
    canvas.draw()
    expected = np.asarray(canvas.buffer_rgba())[..., :3]
    with SummaryWriter(tmp_path) as writer:
        writer.add_figure("fig", figure(), 5, walltime=WALL)
    assert _images_plugin(tmp_path, "fig") == "images"
    ((step, _, width, height, png),) = _image_events(tmp_path, "fig")
    assert step == 5
    assert (width, height) == (100, 75)  # 2 × 1.5 inches at 50 dpi
    pixels = decode_png(png)
    np.testing.assert_array_equal(pixels, expected)
    red = (pixels[..., 0] > 200) & (pixels[..., 1] < 80) & (pixels[..., 2] < 80)
    assert red.sum() > 20  # the red line is drawn


# -- audio, text, tensors --------------------------------------------------------------


@pytest.mark.parametrize(
    ("clip", "rate"),
    [
        (sine(), 8000),
        (np.stack([sine(16000), -sine(16000) * 0.5], axis=1), 16000),  # (L, C) stereo: not in torch
        (sine(22050)[None, :] * 1.5, 22050),  # (1, L), clipped to [-1, 1]
    ],
    ids=["mono", "stereo", "clipped"],
)
def test_add_audio_sample_rate_and_samples(tmp_path: Path, clip: np.ndarray, rate: int) -> None:
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_audio("sound", clip, 7, sample_rate=rate, walltime=WALL)
    acc = accumulate(_only_run(tmp_path / "tbkit"))
    assert acc.Tags()["audio"] == ["sound"]  # a TF1 Summary.Audio, as torch writes
    assert accumulate_plugin(tmp_path / "tbkit").SummaryMetadata("sound").plugin_data.plugin_name == "audio"
    (event,) = acc.Audio("sound")
    samples = clip[0] if clip.ndim == 2 and clip.shape[0] == 1 else clip
    expected = pcm16(samples)
    assert (event.step, event.wall_time, event.content_type) == (7, WALL, "audio/wav")
    assert (event.sample_rate, event.length_frames) == (rate, len(expected))
    got_rate, channels, frames = decode_wav(event.encoded_audio_string)
    assert (got_rate, channels) == (rate, 1 if samples.ndim == 1 else samples.shape[1])
    assert frames.shape == expected.shape
    assert np.abs(frames - expected).max() <= 1  # 16-bit rounding
    if channels == 1:  # torch writes mono clips only
        with _torch_writer(tmp_path / "torch") as writer:
            writer.add_audio("sound", clip, 7, sample_rate=rate, walltime=WALL)
        (theirs,) = accumulate(_only_run(tmp_path / "torch")).Audio("sound")
        assert (event.step, event.wall_time, event.content_type, event.sample_rate, event.length_frames) == (
            theirs.step,
            theirs.wall_time,
            theirs.content_type,
            theirs.sample_rate,
            theirs.length_frames,
        )
        torch_rate, torch_channels, torch_frames = decode_wav(theirs.encoded_audio_string)
        assert (torch_rate, torch_channels) == (got_rate, channels)
        assert np.abs(frames.astype(np.int32) - torch_frames).max() <= 1


def test_add_text(tmp_path: Path) -> None:
    texts = ["# Title\n\n*emphasis* and `code`", "naïve ✓ unicode", "<script>x</script>"]

    def calls(writer) -> None:
        for step, text in enumerate(texts):
            writer.add_text("notes", text, step, walltime=WALL + step)

    with SummaryWriter(tmp_path / "tbkit") as writer:
        calls(writer)
        writer.add_text("table", [["a", "b"], ["c", "d"]], 9, walltime=WALL)
    with _torch_writer(tmp_path / "torch") as writer:
        calls(writer)
    acc = accumulate(_only_run(tmp_path / "tbkit"))
    assert sorted(acc.Tags()["tensors"]) == ["notes/text_summary", "table/text_summary"]  # torch's tags
    assert _plugin(acc, "notes/text_summary") == "text"
    read = tensor_values(acc, "notes/text_summary")
    assert [(s, w) for s, w, _ in read] == [(i, WALL + i) for i in range(3)]
    assert [a.item().decode("utf-8") for _, _, a in read] == texts
    theirs = tensor_values(accumulate(_only_run(tmp_path / "torch")), "notes/text_summary")
    flat = lambda events: [(s, w, a.reshape(-1).tolist()) for s, w, a in events]  # noqa: E731
    assert flat(read) == flat(theirs)  # the same texts (shapes: see the next test)
    ((_, _, table),) = tensor_values(acc, "table/text_summary")
    assert table.shape == (2, 2) and table.tolist() == [[b"a", b"b"], [b"c", b"d"]]


def test_add_text_has_torchs_tensor_shape(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_text("notes", "*hi*", 0, walltime=WALL)
    with _torch_writer(tmp_path / "torch") as writer:
        writer.add_text("notes", "*hi*", 0, walltime=WALL)
    ((_, _, ours),) = tensor_values(accumulate(_only_run(tmp_path / "tbkit")), "notes/text_summary")
    ((_, _, theirs),) = tensor_values(accumulate(_only_run(tmp_path / "torch")), "notes/text_summary")
    assert ours.shape == theirs.shape


@pytest.mark.parametrize(
    "array",
    [
        np.arange(12, dtype=np.int64).reshape(3, 4) - 5,
        np.array([[0.5, -1.25]], dtype=np.float32),
        np.linspace(0, 1, 5, dtype=np.float64),
        np.array([True, False, True]),
        np.arange(6, dtype=np.uint8).reshape(2, 3, 1),
        np.array(3.5, dtype=np.float16),
    ],
    ids=lambda a: f"{a.dtype}{list(a.shape)}",
)
def test_add_tensor(tmp_path: Path, array: np.ndarray) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_tensor("t", array, 2, walltime=WALL)
    acc = accumulate(_only_run(tmp_path))
    assert _plugin(acc, "t") == "tensor"
    ((step, _, got),) = tensor_values(acc, "t")
    assert step == 2 and got.dtype == array.dtype and got.shape == array.shape
    np.testing.assert_array_equal(got, array)


def test_metadata_only_on_the_first_value_of_each_tag(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalar("s", step, step)  # a simple_value: no metadata at all, as in torch
            writer.add_scalar("n", step, step, new_style=True)
            writer.add_text("t", "x", step)
    path = next(tmp_path.glob("events.out.tfevents.*"))
    events = [
        event_pb2.Event.FromString(e.SerializeToString())
        for e in event_file_loader.LegacyEventFileLoader(str(path)).Load()  # as written: not migrated
    ]
    with_meta = [(v.tag, e.step) for e in events for v in e.summary.value if v.HasField("metadata")]
    assert sorted(with_meta) == [("n", 0), ("t/text_summary", 0)]
    assert sum(len(e.summary.value) for e in events) == 9


# -- restarts: purge_step ----------------------------------------------------------------


def _loss_and_note(path: Path) -> tuple[list[tuple[int, float]], list[int]]:
    acc = accumulate_plugin(path)
    loss = [(e.step, tensor_util.make_ndarray(e.tensor_proto).item()) for e in acc.Tensors("loss")]
    (note,) = [t for t in acc.Tags()["tensors"] if t.startswith("note")]  # torch adds "/text_summary"
    notes = [e.step for e in acc.Tensors(note)]
    return loss, notes


def test_purge_step_drops_data_written_before_the_restart(tmp_path: Path) -> None:
    # TensorBoard's Python loader (the plugin accumulator) takes the first SessionLog.START
    # of a run as the session's start and purges on the later ones; a training script that
    # passes ``purge_step=<resumed step>`` on every start (0 the first time) gets the purge.
    write_restarted_run(tmp_path, first_purge_step=0)
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 2
    loss, notes = _loss_and_note(tmp_path)
    assert loss == RESTARTED_EXPECTED
    assert notes == [0, 1, 2, 3, 4]  # every tag is purged, not only those written again


def test_purge_step_after_a_run_without_start_marker_reads_as_torchs(tmp_path: Path) -> None:
    # A first session with no purge_step has no START marker: the Python loader then takes
    # the restart's START as the first one and keeps everything, for torch's files as well.
    # (The Rust loader purges on any START: see test_tensorboard_server.)
    write_restarted_run(tmp_path / "tbkit")
    write_restarted_run_torch(tmp_path / "torch")
    ours, theirs = _loss_and_note(tmp_path / "tbkit"), _loss_and_note(tmp_path / "torch")
    assert ours == theirs
    assert len(ours[0]) == 13


# -- two writers in the same second --------------------------------------------------------


def _check_two_writers(logdir: Path, tags: list[str], count: int) -> None:
    files = sorted(logdir.glob("events.out.tfevents.*"))
    assert len(files) == len(tags), files
    seen = set()
    for path in files:
        acc = accumulate(path)  # each file alone: complete and readable
        (tag,) = acc.Tags()["scalars"]
        seen.add(tag)
        read = [(e.step, e.value) for e in acc.Scalars(tag)]
        assert read == [(i, float(i)) for i in range(count)]
    assert seen == set(tags)
    both = accumulate(logdir)  # and the run as TensorBoard reads it
    assert sorted(both.Tags()["scalars"]) == sorted(tags)
    for tag in tags:
        assert len(both.Scalars(tag)) == count


def test_two_writers_same_second_same_process(tmp_path: Path) -> None:
    first, second = SummaryWriter(tmp_path), SummaryWriter(tmp_path)
    for step in range(500):
        first.add_scalar("first", step, step)
        second.add_scalar("second", step, step)
        if step % 100 == 0:
            first.flush()
    first.close()
    second.close()
    _check_two_writers(tmp_path, ["first", "second"], 500)


_CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from tbkit import SummaryWriter
    logdir, tag, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    Path(logdir, tag + ".ready").write_text("")
    for _ in range(2000):
        if go.exists():
            break
        time.sleep(0.005)
    writer = SummaryWriter(logdir)
    print(int(time.time()))
    for step in range(2000):
        writer.add_scalar(tag, step, step)
    writer.close()
    """
)


@pytest.mark.slow
def test_two_writers_started_together_in_two_processes(tmp_path: Path) -> None:
    logdir = tmp_path / "run"
    logdir.mkdir()
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(logdir), tag, str(go)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for tag in ("alpha", "beta")
    ]
    try:
        for _ in range(1000):
            if all((logdir / f"{t}.ready").exists() for t in ("alpha", "beta")):
                break
            time.sleep(0.01)
        go.write_text("")
        outputs = [child.communicate(timeout=120)[0] for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert [c.returncode for c in children] == [0, 0]
    assert all(out.strip().isdigit() for out in outputs)  # both children created their writer
    _check_two_writers(logdir, ["alpha", "beta"], 2000)
