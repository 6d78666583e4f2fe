"""SummaryWriter: every method round-trips through a plain parse of the event file; bad input is refused."""

from __future__ import annotations

import contextlib
import datetime
import io
import math
import os
import re
import socket
import time
import wave

import numpy as np
import pytest
from PIL import Image

from tbkit import SummaryWriter
from tbkit._tensors import make_ndarray
from tbkit.errors import StorageError, WriterClosedError, WriterError
from tbkit.plugins.histograms.legacy import default_edges
from tbkit.proto import event_pb2, summary_pb2, types_pb2

from ._events import event_files, run_events


@pytest.fixture
def logdir(tmp_path) -> str:
    return str(tmp_path / "run")


@pytest.fixture
def writer(logdir):
    w = SummaryWriter(logdir, flush_secs=60)
    yield w
    with contextlib.suppress(WriterError):
        w.close()


def _values(logdir: str) -> list[tuple[event_pb2.Event, summary_pb2.Summary.Value]]:
    return [(e, v) for e in run_events(logdir) if e.HasField("summary") for v in e.summary.value]


def _one(logdir: str) -> tuple[event_pb2.Event, summary_pb2.Summary.Value]:
    values = _values(logdir)
    assert len(values) == 1, values
    return values[0]


def _tensor(value: summary_pb2.Summary.Value) -> np.ndarray:
    assert value.WhichOneof("value") == "tensor"
    return make_ndarray(value.tensor)


# -- scalars ------------------------------------------------------------------------------


def _number(value: summary_pb2.Summary.Value) -> float:
    assert value.WhichOneof("value") == "simple_value", value
    return value.simple_value


def test_add_scalar_writes_simple_values_as_torch_does(writer, logdir) -> None:
    writer.add_scalar("loss", 0.25, global_step=7, walltime=1234.5)
    writer.add_scalar("loss", np.float64(0.5), global_step=np.int64(8), walltime=np.float32(1236.0))
    writer.add_scalar("acc", 3, 9, 1237)
    writer.close()
    got = _values(logdir)
    assert [(v.tag, e.step, e.wall_time) for e, v in got] == [
        ("loss", 7, 1234.5),
        ("loss", 8, 1236.0),
        ("acc", 9, 1237.0),
    ]
    assert [_number(v) for _, v in got] == [0.25, 0.5, 3.0]
    # torch's default (new_style=False): a bare simple_value, no metadata.
    assert not any(v.HasField("metadata") for _, v in got)


def test_add_scalar_new_style_writes_the_tensor_form(writer, logdir) -> None:
    for step, value in enumerate([0.25, 0.5]):
        writer.add_scalar("loss", value, step, new_style=True)
    writer.close()
    got = _values(logdir)
    for _, v in got:
        assert v.tensor.dtype == types_pb2.DT_FLOAT
        assert list(v.tensor.tensor_shape.dim) == []
        assert _tensor(v).shape == ()
    assert [float(_tensor(v)) for _, v in got] == [0.25, 0.5]
    first = got[0][1]
    assert first.metadata.plugin_data.plugin_name == "scalars"
    assert first.metadata.data_class == summary_pb2.DATA_CLASS_SCALAR
    assert not got[1][1].HasField("metadata")


def test_add_scalar_float32_rounding(writer, logdir) -> None:
    writer.add_scalar("x", 0.1, 0)
    writer.close()
    _, v = _one(logdir)
    assert _number(v) == float(np.float32(0.1))
    assert _number(v) != 0.1


def test_double_precision_is_ignored_without_new_style_as_in_torch(writer, logdir) -> None:
    writer.add_scalar("x", 0.1, 0, double_precision=True)
    writer.close()
    _, v = _one(logdir)
    assert _number(v) == float(np.float32(0.1))


def test_add_scalar_double_precision_new_style(writer, logdir) -> None:
    with pytest.warns(UserWarning, match="float64"):
        writer.add_scalar("x", 0.1, 0, new_style=True, double_precision=True)
    writer.close()
    _, v = _one(logdir)
    assert v.tensor.dtype == types_pb2.DT_DOUBLE
    assert _tensor(v).dtype == np.float64
    assert _tensor(v).shape == ()
    assert float(_tensor(v)) == 0.1


def test_display_name_and_description_go_into_metadata(writer, logdir) -> None:
    writer.add_scalar("x", 1.0, 0, display_name="Loss", summary_description="the loss")
    writer.add_scalar("x", 2.0, 1, display_name="Loss", summary_description="the loss")
    writer.close()
    (_, first), (_, second) = _values(logdir)
    assert (first.metadata.display_name, first.metadata.summary_description) == ("Loss", "the loss")
    assert [_number(first), _number(second)] == [1.0, 2.0]
    assert not second.HasField("metadata")


def test_add_scalar_default_step_and_walltime(writer, logdir) -> None:
    before = time.time()
    writer.add_scalar("x", 1.0)
    after = time.time()
    writer.close()
    event, _ = _one(logdir)
    assert event.step == 0
    assert before <= event.wall_time <= after


def test_add_scalar_one_element_arrays_and_numeric_strings(writer, logdir) -> None:
    writer.add_scalar("a", np.array([2.5]), 0)
    writer.add_scalar("b", [[3.5]], 0)
    writer.add_scalar("c", np.float16(4.5), 0)
    writer.add_scalar("d", "5.5", 0)  # torch takes numeric strings
    writer.add_scalars("e", {"k": "6.5"}, 0)
    writer.close()
    assert [_number(v) for _, v in _values(logdir)] == [2.5, 3.5, 4.5, 5.5]
    assert [_number(v) for _, v in _values(os.path.join(logdir, "e_k"))] == [6.5]


def test_float_global_steps_are_truncated_as_in_torch(writer, logdir) -> None:
    writer.add_scalar("x", 1.0, 2.0)
    writer.add_scalar("x", 1.0, 3.7)
    writer.add_scalar("x", 1.0, np.float32(4.0))
    writer.add_text("t", "x", 5.9)
    writer.close()
    assert [e.step for e, _ in _values(logdir)] == [2, 3, 4, 5]


@pytest.mark.parametrize("new_style", [False, True])
def test_nan_and_inf_are_written_as_they_are(writer, logdir, new_style) -> None:
    for i, x in enumerate([math.nan, math.inf, -math.inf, np.float32("nan")]):
        writer.add_scalar("odd", x, i, new_style=new_style)
    writer.close()
    got = [float(_tensor(v)) if new_style else _number(v) for _, v in _values(logdir)]
    assert math.isnan(got[0])
    assert got[1] == math.inf
    assert got[2] == -math.inf
    assert math.isnan(got[3])


def test_huge_double_precision_scalar_is_kept(writer, logdir) -> None:
    with pytest.warns(UserWarning):
        writer.add_scalar("big", 1e300, 0, new_style=True, double_precision=True)
    writer.close()
    assert float(_tensor(_one(logdir)[1])) == 1e300


def test_value_beyond_float32_range_becomes_inf(writer, logdir) -> None:
    writer.add_scalar("big", 1e39, 0)
    writer.add_scalar("big", -1e39, 1)
    writer.add_scalar("after", 1.0, 2)
    writer.close()
    assert [_number(v) for _, v in _values(logdir)] == [math.inf, -math.inf, 1.0]


def test_add_scalars_writes_sub_runs(writer, logdir) -> None:
    writer.add_scalars("loss/train", {"a": 1.0, "b": np.float32(2.0)}, global_step=1, walltime=10.0)
    writer.add_scalars("loss/train", {"a": 3.0, "b": 4.0}, global_step=2, walltime=11.0)
    writer.close()
    entries = sorted(n for n in os.listdir(logdir) if os.path.isdir(os.path.join(logdir, n)))
    assert entries == ["loss_train_a", "loss_train_b"]
    for key, expected in (("a", [1.0, 3.0]), ("b", [2.0, 4.0])):
        got = _values(os.path.join(logdir, f"loss_train_{key}"))
        assert [v.tag for _, v in got] == ["loss/train", "loss/train"]
        assert [(e.step, e.wall_time) for e, _ in got] == [(1, 10.0), (2, 11.0)]
        assert [_number(v) for _, v in got] == expected
    assert _values(logdir) == []  # the main run holds no scalars of its own


# -- histograms ---------------------------------------------------------------------------


def _histo(value: summary_pb2.Summary.Value) -> tuple[np.ndarray, np.ndarray]:
    """A torch-form ``HistogramProto``: its right limits and counts (checked to start empty)."""
    assert value.WhichOneof("value") == "histo", value
    assert not value.HasField("metadata")  # torch writes none
    limits, counts = np.array(value.histo.bucket_limit), np.array(value.histo.bucket)
    assert len(limits) == len(counts) and counts[0] == 0  # one empty bucket left of the data
    return limits, counts


def test_add_histogram_default_buckets_are_torchs(writer, logdir) -> None:
    data = np.random.default_rng(0).normal(size=(40, 25))
    writer.add_histogram("w", data, global_step=3, walltime=5.0)
    writer.close()
    event, v = _one(logdir)
    assert (event.step, event.wall_time) == (3, 5.0)
    h = v.histo
    assert (h.min, h.max, h.num) == (data.min(), data.max(), data.size)
    assert h.sum == pytest.approx(data.sum()) and h.sum_squares == pytest.approx((data**2).sum())
    limits, counts = _histo(v)
    edges = default_edges()
    first = int(np.searchsorted(edges, limits[0]))
    np.testing.assert_array_equal(limits, edges[first : first + len(limits)])  # TF1's default edges
    expected, _ = np.histogram(data, bins=edges)
    np.testing.assert_array_equal(counts[1:], expected[first : first + len(limits) - 1])
    assert counts.sum() == data.size
    assert counts[1] > 0 and counts[-1] > 0  # trimmed to the data


def test_add_histogram_values_on_edges(writer, logdir) -> None:
    data = np.arange(31, dtype=np.int64)  # min 0, max 30: every integer is an edge
    writer.add_histogram("edges", data, 0, bins=30)
    writer.close()
    limits, counts = _histo(_one(logdir)[1])
    np.testing.assert_array_equal(limits, np.arange(31.0))
    assert counts.tolist() == [0.0] + [1.0] * 29 + [2.0]


def test_add_histogram_special_inputs(writer, logdir) -> None:
    writer.add_histogram("equal", np.full(7, 2.5), 0)
    writer.add_histogram("empty", np.array([], dtype=np.float32), 0)
    writer.add_histogram("nonfinite", [1.0, np.nan, 2.0, np.inf, 3.0, -np.inf], 0, bins=2)
    writer.close()
    got = {v.tag: v for _, v in _values(logdir)}
    limits, counts = _histo(got["equal"])
    assert counts.tolist() == [0.0, 7.0] and limits[0] <= 2.5 <= limits[1]
    assert (got["empty"].histo.num, list(got["empty"].histo.bucket)) == (0.0, [])
    limits, counts = _histo(got["nonfinite"])  # non-finite values are left out
    assert (got["nonfinite"].histo.num, limits.tolist(), counts.tolist()) == (3.0, [1.0, 2.0, 3.0], [0, 1, 2])


def test_add_histogram_other_bins_and_max_bins(writer, logdir) -> None:
    data = np.random.default_rng(1).uniform(-3, 5, size=500)
    writer.add_histogram("ten", data, 0, bins=10)
    writer.add_histogram("auto", data, 0, bins="auto")
    writer.add_histogram("edges", data, 0, bins=[-3.0, 0.0, 1.0, 5.0])
    writer.add_histogram("capped", data, 0, bins=10, max_bins=5)
    writer.close()
    got = {v.tag: _histo(v) for _, v in _values(logdir)}
    for tag, bins in (("ten", 10), ("auto", "auto"), ("edges", [-3.0, 0.0, 1.0, 5.0])):
        counts, edges = np.histogram(data, bins=bins)
        np.testing.assert_allclose(got[tag][0], edges)
        np.testing.assert_array_equal(got[tag][1], [0.0, *counts])
    counts, edges = np.histogram(data, bins=10)
    np.testing.assert_allclose(got["capped"][0], edges[::2])
    np.testing.assert_array_equal(got["capped"][1], [0.0, *counts.reshape(5, 2).sum(axis=1)])


def test_add_histogram_raw(writer, logdir) -> None:
    writer.add_histogram_raw(
        "raw",
        min=-1.0,
        max=4.0,
        num=6,
        sum=9.0,
        sum_squares=31.0,
        bucket_limits=[0.0, 2.0, 4.0],
        bucket_counts=[1, 3, 2],
        global_step=4,
        walltime=8.0,
    )
    writer.close()
    event, v = _one(logdir)
    assert (event.step, event.wall_time) == (4, 8.0)
    h = v.histo
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (-1.0, 4.0, 6.0, 9.0, 31.0)
    assert list(h.bucket_limit) == [0.0, 2.0, 4.0]
    assert list(h.bucket) == [1.0, 3.0, 2.0]


# -- images -------------------------------------------------------------------------------


def _image(value: summary_pb2.Summary.Value) -> tuple[int, int, np.ndarray, str]:
    """A torch-form ``Summary.Image``: width, height, decoded pixels and mode."""
    assert value.WhichOneof("value") == "image", value
    image = value.image
    png = image.encoded_image_string
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(png)) as img:
        assert img.size == (image.width, image.height)
        assert image.colorspace == len(img.getbands())
        return image.width, image.height, np.asarray(img), img.mode


def test_add_image_chw_float(writer, logdir) -> None:
    rng = np.random.default_rng(2)
    chw = rng.uniform(0, 1, size=(3, 5, 7))
    writer.add_image("img", chw, global_step=2, walltime=3.0)
    writer.close()
    event, v = _one(logdir)
    assert (event.step, event.wall_time) == (2, 3.0)
    assert not v.HasField("metadata")  # torch's Summary.Image carries none
    width, height, pixels, mode = _image(v)
    assert (width, height, mode) == (7, 5, "RGB")
    expected = np.transpose(chw, (1, 2, 0)) * 255
    assert np.all(np.abs(pixels.astype(float) - expected) <= 1.0)


@pytest.mark.parametrize(
    ("shape", "fmt", "mode", "transpose"),
    [
        ((4, 6, 3), "HWC", "RGB", None),
        ((4, 6, 4), "HWC", "RGBA", None),
        ((4, 6), "HW", "L", None),
        ((1, 4, 6), "CHW", "L", (1, 2, 0)),
        ((6, 4, 3), "WHC", "RGB", (1, 0, 2)),
    ],
)
def test_add_image_uint8_layouts(writer, logdir, shape, fmt, mode, transpose) -> None:
    data = np.random.default_rng(3).integers(0, 256, size=shape, dtype=np.uint8)
    writer.add_image("img", data, 0, dataformats=fmt)
    writer.close()
    width, height, pixels, got_mode = _image(_one(logdir)[1])
    expected = data if transpose is None else np.transpose(data, transpose)
    if expected.ndim == 3 and expected.shape[-1] == 1:
        expected = expected[..., 0]
    assert got_mode == mode
    assert (height, width) == expected.shape[:2]
    np.testing.assert_array_equal(pixels, expected)


def test_add_images_grid(writer, logdir) -> None:
    batch = np.random.default_rng(4).integers(0, 256, size=(10, 3, 2, 3), dtype=np.uint8)
    writer.add_images("grid", batch, 0)
    writer.close()
    width, height, pixels, _ = _image(_one(logdir)[1])
    assert (width, height) == (8 * 3, 2 * 2)  # eight per row, two rows
    nhwc = np.transpose(batch, (0, 2, 3, 1))
    np.testing.assert_array_equal(pixels[0:2, 0:3], nhwc[0])
    np.testing.assert_array_equal(pixels[0:2, 21:24], nhwc[7])
    np.testing.assert_array_equal(pixels[2:4, 3:6], nhwc[9])
    assert not pixels[2:4, 6:].any()  # the unused cells are black


def test_add_figure(writer, logdir) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1), dpi=50)
    fig.add_subplot().plot([0, 1], [1, 0])
    writer.add_figure("fig", fig, 0, close=False)
    writer.add_figure("figs", [fig, fig], 1, close=False)
    writer.close()
    got = _values(logdir)
    width, height, pixels, mode = _image(got[0][1])
    assert (width, height, mode) == (100, 50, "RGB")
    assert pixels.min() < 255  # something was drawn
    width, height, _, _ = _image(got[1][1])
    assert (width, height) == (200, 50)


# -- audio --------------------------------------------------------------------------------


def _wav(value: summary_pb2.Summary.Value) -> tuple[wave._wave_params, np.ndarray, bytes]:
    """A torch-form ``Summary.Audio``: the WAV's parameters, its frames, and no label."""
    assert value.WhichOneof("value") == "audio", value
    audio = value.audio
    assert audio.content_type == "audio/wav"
    with wave.open(io.BytesIO(audio.encoded_audio_string), "rb") as reader:
        frames = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
        params = reader.getparams()
    assert (audio.sample_rate, audio.num_channels, audio.length_frames) == (
        params.framerate,
        params.nchannels,
        params.nframes,
    )
    return params, frames, b""


def test_add_audio_mono(writer, logdir) -> None:
    t = np.arange(800) / 8000
    samples = 0.5 * np.sin(2 * np.pi * 440 * t)
    writer.add_audio("tone", samples, global_step=1, sample_rate=8000, walltime=2.0)
    writer.close()
    event, v = _one(logdir)
    assert (event.step, event.wall_time) == (1, 2.0)
    reader, frames, label = _wav(v)
    assert (reader.nchannels, reader.sampwidth, reader.framerate) == (1, 2, 8000)
    assert reader.nframes == 800
    assert label == b""
    assert np.all(np.abs(frames - samples * 32767) <= 1)


def test_add_audio_shapes_and_ranges(writer, logdir) -> None:
    stereo = np.stack([np.linspace(-1, 1, 50), np.linspace(1, -1, 50)], axis=1)
    writer.add_audio("stereo", stereo, 0, sample_rate=16000)
    writer.add_audio("row", np.linspace(-0.5, 0.5, 30)[np.newaxis, :], 0, sample_rate=22050)
    writer.add_audio("clipped", np.array([2.0, -3.0, 0.0]), 0, sample_rate=100)
    writer.add_audio("int16", np.array([0, 32767, -32767, 1000], dtype=np.int16), 0, sample_rate=100)
    writer.close()
    got = {v.tag: _wav(v) for _, v in _values(logdir)}
    reader, frames, _ = got["stereo"]
    assert (reader.nchannels, reader.framerate, reader.nframes) == (2, 16000, 50)
    assert np.all(np.abs(frames.reshape(50, 2) - stereo * 32767) <= 1)
    reader, frames, _ = got["row"]
    assert (reader.nchannels, reader.nframes) == (1, 30)
    assert got["clipped"][1].tolist() == [32767, -32767, 0]
    assert np.all(np.abs(got["int16"][1] - np.array([0, 32767, -32767, 1000])) <= 1)


# -- text, tensors ------------------------------------------------------------------------


def test_add_text(writer, logdir) -> None:
    writer.add_text("note", "héllo **world**", global_step=3, walltime=4.0)
    writer.add_text("table", [["a", "b"], ["c", "d"]], 4)
    writer.close()
    got = _values(logdir)
    event, v = got[0]
    assert (event.step, event.wall_time) == (3, 4.0)
    assert v.metadata.plugin_data.plugin_name == "text"
    assert v.tensor.dtype == types_pb2.DT_STRING
    assert _tensor(v).shape == (1,)  # torch's one-element vector
    assert _tensor(v)[0].decode("utf-8") == "héllo **world**"
    table = _tensor(got[1][1])
    assert table.shape == (2, 2)
    assert table.tolist() == [[b"a", b"b"], [b"c", b"d"]]


def test_add_tensor(writer, logdir) -> None:
    data = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    writer.add_tensor("t", data, 5)
    writer.close()
    event, v = _one(logdir)
    assert event.step == 5
    assert v.metadata.plugin_data.plugin_name == "tensor"
    got = _tensor(v)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, data)


# -- lifecycle ----------------------------------------------------------------------------


def test_purge_step_writes_session_log_start(logdir) -> None:
    w = SummaryWriter(logdir, purge_step=42)
    w.add_scalar("x", 1.0, 42)
    w.close()
    events = run_events(logdir)
    assert events[0].file_version == "brain.Event:2"
    assert events[1].WhichOneof("what") == "session_log"
    assert events[1].session_log.status == event_pb2.SessionLog.START
    assert events[1].step == 42
    assert events[2].HasField("summary")


def test_no_session_log_without_purge_step(writer, logdir) -> None:
    writer.close()
    assert [e.WhichOneof("what") for e in run_events(logdir)] == ["file_version"]


def test_default_logdir(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    host = re.escape(socket.gethostname())
    m = re.fullmatch(
        rf"runs{re.escape(os.sep)}([A-Z][a-z]{{2}}\d{{2}}_\d{{2}}-\d{{2}}-\d{{2}})_{host}_lr0\.1", w.log_dir
    )
    assert m, w.log_dir
    stamp = datetime.datetime.strptime(m.group(1), "%b%d_%H-%M-%S")
    assert stamp.month in range(1, 13)
    assert (tmp_path / w.log_dir).is_dir()
    assert len(event_files(str(tmp_path / w.log_dir))) == 1
    assert w.get_logdir() == w.log_dir


def test_get_logdir_and_path_like(tmp_path) -> None:
    w = SummaryWriter(tmp_path / "p")
    w.close()
    assert w.get_logdir() == str(tmp_path / "p")


def test_context_manager(logdir) -> None:
    with SummaryWriter(logdir, flush_secs=3600) as w:
        assert isinstance(w, SummaryWriter)
        w.add_scalar("x", 1.0, 0)
    assert len(_values(logdir)) == 1
    with pytest.raises(WriterClosedError):
        w.add_scalar("x", 2.0, 1)


def test_context_manager_closes_on_exception(logdir) -> None:
    with pytest.raises(KeyError), SummaryWriter(logdir, flush_secs=3600) as w:
        w.add_scalar("x", 1.0, 0)
        raise KeyError("boom")
    assert len(_values(logdir)) == 1
    with pytest.raises(WriterClosedError):
        w.flush()


def test_flush_writes_main_and_sub_runs(writer, logdir) -> None:
    writer.add_scalar("x", 1.0, 0)
    writer.add_scalars("m", {"k": 2.0}, 0)
    writer.flush()
    assert len(_values(logdir)) == 1
    assert len(_values(os.path.join(logdir, "m_k"))) == 1


class _FullDisk:
    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("first", ["scalar", "double", "text"])
def test_background_failure_reaches_the_caller(logdir, first) -> None:
    w = SummaryWriter(logdir, flush_secs=3600)
    real, w._writer._file = w._writer._file, _FullDisk()
    real.close()
    if first == "scalar":
        w.add_scalar("x", 1.0, 0)
    elif first == "double":
        w.add_scalar("x", 1.0, 0, double_precision=True)
    else:
        w.add_text("x", "t", 0)
    with pytest.raises(WriterError) as info:
        w.flush()
    assert isinstance(info.value.__cause__, OSError)
    for call in (lambda: w.add_scalar("x", 2.0, 1), lambda: w.add_text("t", "x", 1)):
        with pytest.raises(WriterError, match="No space left"):
            call()
    with pytest.raises(WriterError):
        w.close()
    w.close()  # the failure was reported once; closing again does nothing


def test_close_is_idempotent(writer, logdir) -> None:
    writer.add_scalar("x", 1.0, 0)
    writer.close()
    writer.close()
    assert len(_values(logdir)) == 1


def test_memory_logdir() -> None:
    import uuid

    import fsspec

    root = f"memory://tbkit-sw-{uuid.uuid4().hex}"
    try:
        with SummaryWriter(root + "/run") as w:
            w.add_scalar("x", 1.5, 3)
            w.add_text("t", "mem", 3)
        assert [v.tag for _, v in _values(root + "/run")] == ["x", "t/text_summary"]
    finally:
        fsspec.filesystem("memory").rm(root[len("memory://") :], recursive=True)


# -- bad input ----------------------------------------------------------------------------

_CLOSED_CALLS = {
    "add_scalar": lambda w: w.add_scalar("x", 1.0, 0),
    "add_scalars": lambda w: w.add_scalars("x", {"a": 1.0}, 0),
    "add_histogram": lambda w: w.add_histogram("x", [1.0, 2.0], 0),
    "add_histogram_raw": lambda w: w.add_histogram_raw("x", 0, 1, 1, 1, 1, [1.0], [1.0], 0),
    "add_image": lambda w: w.add_image("x", np.zeros((1, 2, 2)), 0),
    "add_images": lambda w: w.add_images("x", np.zeros((1, 1, 2, 2)), 0),
    "add_audio": lambda w: w.add_audio("x", np.zeros(4), 0),
    "add_text": lambda w: w.add_text("x", "t", 0),
    "add_tensor": lambda w: w.add_tensor("x", np.zeros(2), 0),
    "flush": lambda w: w.flush(),
}


@pytest.mark.parametrize("name", list(_CLOSED_CALLS))
def test_closed_writer_raises(writer, logdir, name) -> None:
    writer.close()
    size = os.path.getsize(event_files(logdir)[0])
    with pytest.raises(WriterClosedError) as info:
        _CLOSED_CALLS[name](writer)
    assert isinstance(info.value, ValueError)
    assert "closed" in str(info.value)
    assert os.path.getsize(event_files(logdir)[0]) == size
    assert sorted(os.listdir(logdir)) == [os.path.basename(event_files(logdir)[0])]  # no sub-run made


_BAD = [
    # (call, exception, words the message must contain)
    (lambda w: w.add_scalar(123, 1.0), TypeError, ["tag", "int"]),
    (lambda w: w.add_scalar(None, 1.0), TypeError, ["tag"]),
    (lambda w: w.add_scalar("", 1.0), ValueError, ["tag", "empty"]),
    (lambda w: w.add_histogram(b"bytes", [1.0]), TypeError, ["tag"]),
    (lambda w: w.add_text("", "x"), ValueError, ["tag"]),
    (lambda w: w.add_scalars("", {"a": 1.0}), ValueError, ["main_tag"]),
    (lambda w: w.add_scalar("x", "abc"), ValueError, ["scalar_value", "'abc'"]),
    (lambda w: w.add_scalar("x", b"1"), TypeError, ["scalar_value"]),
    (lambda w: w.add_scalar("x", None), TypeError, ["scalar_value", "NoneType"]),
    (lambda w: w.add_scalar("x", [1.0, 2.0]), ValueError, ["scalar_value", "(2,)"]),
    (lambda w: w.add_scalar("x", np.zeros((2, 2))), ValueError, ["scalar_value", "(2, 2)"]),
    (lambda w: w.add_scalar("x", []), ValueError, ["scalar_value"]),
    (lambda w: w.add_scalars("x", {"a": "z"}), ValueError, ["tag_scalar_dict['a']"]),
    (lambda w: w.add_scalars("x", [1.0]), TypeError, ["tag_scalar_dict"]),
    (lambda w: w.add_scalar("x", 1.0, True), TypeError, ["global_step", "bool"]),
    (lambda w: w.add_scalar("x", 1.0, math.nan), ValueError, ["global_step", "nan"]),
    (lambda w: w.add_scalar("x", 1.0, "3"), TypeError, ["global_step", "'3'"]),
    (lambda w: w.add_scalar("x", 1.0, 2**63), ValueError, ["global_step", str(2**63)]),
    (lambda w: w.add_scalar("x", 1.0, -(2**63) - 1), ValueError, ["global_step"]),
    (lambda w: w.add_text("x", "t", 2**64), ValueError, ["global_step", str(2**64)]),
    (lambda w: w.add_histogram("x", [1.0], np.float64("inf")), ValueError, ["global_step"]),
    (lambda w: w.add_histogram("x", [1.0], [1.0, 2.0]), TypeError, ["global_step"]),
    (lambda w: w.add_scalar("x", 1.0, 0, walltime="now"), TypeError, ["walltime"]),
    (lambda w: w.add_image("x", np.zeros((3, 4, 4)), dataformats="XYZ"), ValueError, ["dataformats", "XYZ"]),
    (lambda w: w.add_image("x", np.zeros((3, 4, 4)), dataformats="CHHW"), ValueError, ["dataformats"]),
    (lambda w: w.add_image("x", np.zeros((3, 4, 4)), dataformats=3), TypeError, ["dataformats"]),
    (lambda w: w.add_image("x", np.zeros((4, 4)), dataformats="CHW"), ValueError, ["CHW", "(4, 4)"]),
    (lambda w: w.add_image("x", np.zeros((2, 4, 4))), ValueError, ["channels", "2"]),
    (lambda w: w.add_image("x", np.zeros((4, 4, 5)), dataformats="HWC"), ValueError, ["channels", "5"]),
    (lambda w: w.add_image("x", np.zeros((3, 0, 4))), ValueError, ["empty", "(3, 0, 4)"]),
    (lambda w: w.add_image("x", np.zeros((0, 4, 3)), dataformats="HWC"), ValueError, ["empty"]),
    (lambda w: w.add_image("x", np.array([["a"]]), dataformats="HW"), TypeError, ["dtype"]),
    (lambda w: w.add_image("x", "not an image"), TypeError, ["img_tensor", "str"]),
    (lambda w: w.add_images("x", np.zeros((3, 4, 4)), dataformats="CHW"), ValueError, ["dataformats", "N"]),
    (lambda w: w.add_audio("x", np.zeros((2, 3, 4))), ValueError, ["snd_tensor", "(2, 3, 4)"]),
    (lambda w: w.add_audio("x", np.zeros(0)), ValueError, ["snd_tensor", "(0,)"]),
    (lambda w: w.add_audio("x", np.array(["a"])), TypeError, ["snd_tensor", "dtype"]),
    (lambda w: w.add_audio("x", np.zeros(4), sample_rate=0), ValueError, ["sample_rate", "0"]),
    (lambda w: w.add_audio("x", np.zeros(4), sample_rate=-8000), ValueError, ["sample_rate", "-8000"]),
    (lambda w: w.add_audio("x", np.zeros(4), sample_rate=8000.5), ValueError, ["sample_rate", "8000.5"]),
    (lambda w: w.add_audio("x", np.zeros(4), sample_rate=True), ValueError, ["sample_rate", "True"]),
    (lambda w: w.add_text("x", 123), TypeError, ["text_string", "int"]),
    (lambda w: w.add_text("x", None), TypeError, ["text_string"]),
    (lambda w: w.add_text("x", ["a", 1]), TypeError, ["text_string"]),
    (lambda w: w.add_text("x", []), TypeError, ["text_string"]),
    (lambda w: w.add_text("x", b"bytes"), TypeError, ["text_string", "bytes"]),
    (lambda w: w.add_histogram("x", ["a", "b"]), TypeError, ["values"]),
    (lambda w: w.add_histogram("x", [1.0], bins=0), ValueError, ["bins"]),
    (lambda w: w.add_histogram("x", [1.0], bins=[1.0]), ValueError, ["bins"]),
    (lambda w: w.add_histogram("x", [1.0], bins="nonsense"), ValueError, ["bins", "nonsense"]),
    (lambda w: w.add_histogram_raw("x", 0, 1, 1, 1, 1, [1.0, 2.0], [1.0]), ValueError, ["bucket_limits"]),
]


@pytest.mark.parametrize(("call", "exc", "words"), _BAD, ids=[f"bad{i}" for i in range(len(_BAD))])
def test_bad_input_is_refused_with_a_message(writer, logdir, call, exc, words) -> None:
    with pytest.raises(exc) as info:
        call(writer)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    writer.add_scalar("still_ok", 1.0, 0)  # the writer is not broken by the refusal
    writer.close()
    assert [v.tag for _, v in _values(logdir)] == ["still_ok"]


def test_empty_image_batch_is_refused(writer, logdir) -> None:
    with pytest.raises(ValueError, match="empty"):
        writer.add_images("x", np.zeros((0, 3, 4, 4)), 0)


def test_complex_scalar_is_refused_naming_the_argument(writer) -> None:
    with pytest.raises(TypeError, match="scalar_value"):
        writer.add_scalar("x", 1 + 2j, 0)


def test_unwritable_directory_raises_storage_error(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a regular file")
    target = str(blocker / "run")
    with pytest.raises(StorageError) as info:
        SummaryWriter(target)
    assert info.value.path == target
    assert target in str(info.value)
    assert isinstance(info.value, OSError)


def test_purge_step_must_be_a_number(tmp_path) -> None:
    with pytest.raises(TypeError, match="global_step"):
        SummaryWriter(str(tmp_path / "r"), purge_step="five")


def test_channels_first_audio_is_transposed(writer, logdir) -> None:
    stereo = np.stack([np.linspace(-1, 1, 100), np.zeros(100)])  # (C=2, L=100)
    writer.add_audio("a", stereo, 0, sample_rate=8000)
    writer.flush()
    params, _, _ = _wav(_one(logdir)[1])
    assert (params.nchannels, params.nframes) == (2, 100)


def test_ambiguous_audio_layout_is_refused(writer) -> None:
    with pytest.raises(ValueError, match="snd_tensor"):
        writer.add_audio("a", np.zeros((20, 30)), 0)


def test_bad_purge_step_creates_no_file(tmp_path) -> None:
    with pytest.raises(TypeError, match="global_step"):
        SummaryWriter(str(tmp_path / "run"), purge_step=object())
    assert not (tmp_path / "run").exists() or not list((tmp_path / "run").iterdir())


def test_scalar_beyond_float_range_names_the_argument(writer) -> None:
    with pytest.raises(ValueError, match="scalar_value"):
        writer.add_scalar("x", 2**1024, 0)


def test_add_summary_takes_protos_of_any_package_and_bytes(writer, logdir) -> None:
    from tbkit.plugins.scalars.summary import scalar_pb

    ours = scalar_pb("a", 1.5)
    writer.add_summary(ours, 1)
    writer.add_summary(ours, 2)  # the second loses its metadata in the file, not in the caller's proto
    assert ours.value[0].HasField("metadata")
    theirs = pytest.importorskip("tensorboard.compat.proto.summary_pb2").Summary()
    theirs.ParseFromString(scalar_pb("b", 2.5).SerializeToString())
    writer.add_summary(theirs, 3)
    writer.add_summary(scalar_pb("c", 3.5).SerializeToString(), 4)
    with pytest.raises(TypeError, match="summary"):
        writer.add_summary("not a summary", 5)
    with pytest.raises(ValueError, match="summary"):
        writer.add_summary(b"\xff\xff\xff", 5)
    writer.flush()
    got = [(e.step, v.tag, float(_tensor(v)), v.HasField("metadata")) for e, v in _values(logdir)]
    assert got == [(1, "a", 1.5, True), (2, "a", 1.5, False), (3, "b", 2.5, True), (4, "c", 3.5, True)]
