"""The rich kinds written by SummaryWriter, read back with the record layer and protos only."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

import tbkit
from tbkit import SummaryWriter
from tbkit._tensors import make_ndarray
from tbkit.hparams import Discrete, HParam, Interval, Metric
from tbkit.proto import hparams_pb2, plugins_pb2

from ._events import run_events


@pytest.fixture
def logdir(tmp_path) -> str:
    return str(tmp_path / "run")


def _values(logdir: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for event in run_events(logdir):
        for value in event.summary.value:
            out.setdefault(value.tag, []).append((event, value))
    return out


def _hparams_data(value) -> hparams_pb2.HParamsPluginData:
    assert value.metadata.plugin_data.plugin_name == "hparams"
    return hparams_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)


# -- hparams ------------------------------------------------------------------------------


def test_add_hparams_writes_experiment_session_and_metrics_into_own_run(logdir) -> None:
    with SummaryWriter(logdir) as w:
        w.add_hparams(
            {"lr": 0.1, "opt": "adam", "bn": True, "depth": 3, "gone": None}, {"acc": 0.75}, global_step=9
        )
    values = _values(logdir)
    experiment = _hparams_data(values["_hparams_/experiment"][0][1]).experiment
    types = {info.name: info.type for info in experiment.hparam_infos}
    assert types == {
        "lr": hparams_pb2.DATA_TYPE_FLOAT64,
        "opt": hparams_pb2.DATA_TYPE_STRING,
        "bn": hparams_pb2.DATA_TYPE_BOOL,
        "depth": hparams_pb2.DATA_TYPE_FLOAT64,
    }
    assert [m.name.tag for m in experiment.metric_infos] == ["acc"]
    start = _hparams_data(values["_hparams_/session_start_info"][0][1]).session_start_info
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["opt"].string_value == "adam"
    assert start.hparams["bn"].bool_value is True
    assert "gone" not in start.hparams
    assert start.group_name
    end = _hparams_data(values["_hparams_/session_end_info"][0][1]).session_end_info
    assert end.status == hparams_pb2.STATUS_SUCCESS
    ((event, acc),) = values["acc"]
    assert event.step == 9
    assert acc.simple_value == np.float32(0.75)  # as add_scalar writes it
    (bn,) = [info for info in experiment.hparam_infos if info.name == "bn"]
    assert [v.bool_value for v in bn.domain_discrete.values] == [False, True]


def test_each_call_is_its_own_session_as_in_torchs_example(tmp_path) -> None:
    logdir = str(tmp_path / "run")
    with SummaryWriter(logdir) as w:
        for i in range(5):
            w.add_hparams({"lr": 0.1 * i, "bsize": i}, {"hparam/accuracy": 10 * i, "hparam/loss": 10 * i})
    runs = [logdir, *sorted(str(p) for p in (tmp_path / "run").iterdir() if p.is_dir())]
    assert len(runs) == 5  # the writer's own run, then one sub-run per later call
    for i, run in enumerate(runs):
        values = _values(run)
        start = _hparams_data(values["_hparams_/session_start_info"][0][1]).session_start_info
        assert (start.hparams["lr"].number_value, start.hparams["bsize"].number_value) == (0.1 * i, i)
        assert [v.simple_value for _, v in values["hparam/accuracy"]] == [10 * i]
        assert len(values["_hparams_/session_start_info"]) == 1
    # tbkit's reader (and so its hparams dashboard) sees five sessions, each with its own metrics.
    frame = tbkit.read(str(tmp_path)).hparams().sort_values("lr")
    assert frame["bsize"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert frame["hparam/accuracy"].tolist() == [0.0, 10.0, 20.0, 30.0, 40.0]
    assert frame["hparam/loss"].tolist() == frame["hparam/accuracy"].tolist()


def test_same_values_share_a_group_name(tmp_path) -> None:
    names = []
    for run in ("a", "b"):
        with SummaryWriter(str(tmp_path / run)) as w:
            w.add_hparams({"lr": 0.1, "opt": "sgd"}, {"acc": 0.5})
        names.append(_hparams_data(_values(str(tmp_path / run))["_hparams_/session_start_info"][0][1]))
    assert names[0].session_start_info.group_name == names[1].session_start_info.group_name


def test_run_name_writes_a_sub_run_like_torch(logdir) -> None:
    with SummaryWriter(logdir) as w:
        w.add_hparams({"lr": 0.1}, {"acc": 0.5}, run_name="trial1")
    assert _values(logdir) == {}
    assert set(_values(logdir + "/trial1")) >= {"_hparams_/experiment", "_hparams_/session_start_info", "acc"}


def test_open_session_then_end_with_status(logdir) -> None:
    with SummaryWriter(logdir) as w:
        w.add_hparams({"lr": 0.1}, {}, status=None)
        w.end_hparams_session("failure")
    values = _values(logdir)
    ((_, end),) = values["_hparams_/session_end_info"]
    assert _hparams_data(end).session_end_info.status == hparams_pb2.STATUS_FAILURE


def test_hparams_config_declares_domains(logdir) -> None:
    with SummaryWriter(logdir) as w:
        w.add_hparams_config(
            [
                HParam("lr", Interval(1e-4, 0.1)),
                HParam("opt", Discrete(["adam", "sgd"]), description="optimizer"),
            ],
            [Metric("loss", group="validation", display_name="Loss")],
        )
    experiment = _hparams_data(_values(logdir)["_hparams_/experiment"][0][1]).experiment
    lr, opt = experiment.hparam_infos
    assert (lr.domain_interval.min_value, lr.domain_interval.max_value) == (1e-4, 0.1)
    assert [v.string_value for v in opt.domain_discrete.values] == ["adam", "sgd"]
    assert opt.description == "optimizer"
    assert experiment.metric_infos[0].name.group == "validation"


@pytest.mark.parametrize(
    ("hparams", "metrics", "kwargs", "error", "match"),
    [
        ({"lr": object()}, {}, {}, TypeError, "lr"),
        ({"lr": 0.1}, {"acc": "high"}, {}, TypeError, "acc"),
        ({"lr": 0.1}, {}, {"hparam_domain_discrete": {"other": [1, 2]}}, ValueError, "other"),
        ({"lr": 0.1}, {}, {"status": "done"}, ValueError, "status"),
        ([("lr", 0.1)], {}, {}, TypeError, "hparam_dict"),
    ],
)
def test_add_hparams_bad_input(logdir, hparams, metrics, kwargs, error, match) -> None:
    with SummaryWriter(logdir) as w, pytest.raises(error, match=match):
        w.add_hparams(hparams, metrics, **kwargs)


def test_discrete_domain_rejects_mixed_kinds() -> None:
    with pytest.raises(ValueError, match="Discrete"):
        Discrete([1, "a"])
    with pytest.raises(ValueError, match="Interval"):
        Interval(2, 1)


# -- PR curves ------------------------------------------------------------------------------


def _reference_curve(labels, predictions, n, weights=None):
    """TensorBoard's definition, one threshold at a time: positive at i if floor(p*(n-1)) >= i."""
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, float)
    bucket = np.floor(np.asarray(predictions) * (n - 1))
    rows = []
    for i in range(n):
        pos = bucket >= i
        tp = float(np.sum(w * labels * pos))
        fp = float(np.sum(w * (1 - labels) * pos))
        tn = float(np.sum(w * (1 - labels) * ~pos))
        fn = float(np.sum(w * labels * ~pos))
        rows.append([tp, fp, tn, fn, tp / max(1e-7, tp + fp), tp / max(1e-7, tp + fn)])
    return np.array(rows, dtype=np.float32).T


@pytest.mark.parametrize("weighted", [False, True])
def test_pr_curve_matches_the_definition(logdir, weighted) -> None:
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 500)
    predictions = rng.random(500)
    predictions[:3] = [0.0, 1.0, 0.5]
    weights = rng.random(500) if weighted else None
    with SummaryWriter(logdir) as w:
        w.add_pr_curve("pr", labels, predictions, 3, num_thresholds=11, weights=weights)
    ((event, value),) = _values(logdir)["pr"]
    meta = plugins_pb2.PrCurvePluginData.FromString(value.metadata.plugin_data.content)
    assert (event.step, meta.num_thresholds) == (3, 11)
    np.testing.assert_allclose(
        make_ndarray(value.tensor), _reference_curve(labels, predictions, 11, weights), rtol=1e-5
    )


def test_pr_curve_raw_and_bad_input(logdir) -> None:
    rows = [np.arange(5, dtype=float) + k for k in range(6)]
    with SummaryWriter(logdir) as w:
        w.add_pr_curve_raw("raw", *rows, global_step=1, num_thresholds=5)
        with pytest.raises(ValueError, match="num_thresholds"):
            w.add_pr_curve_raw("raw", *rows, num_thresholds=6)
        with pytest.raises(ValueError, match="predictions"):
            w.add_pr_curve("pr", [1, 0], [0.5, 1.5])
        with pytest.raises(ValueError, match="same size"):
            w.add_pr_curve("pr", [1, 0, 1], [0.5, 0.2])
    ((_, value),) = _values(logdir)["raw"]
    np.testing.assert_array_equal(make_ndarray(value.tensor), np.stack(rows).astype(np.float32))


# -- custom scalars, mesh ---------------------------------------------------------------------


def test_custom_scalars_layout(logdir) -> None:
    with SummaryWriter(logdir) as w:
        w.add_custom_scalars(
            {"Loss": {"all": ["Multiline", ["loss/.*"]], "band": ["Margin", ["m", "lo", "hi"]]}}
        )
        w.add_custom_scalars_multilinechart(["acc"], category="Acc", title="acc")
        with pytest.raises(ValueError, match="Margin"):
            w.add_custom_scalars_marginchart(["only_one"])
    layouts = [
        plugins_pb2.Layout.FromString(make_ndarray(v.tensor).item())
        for _, v in _values(logdir)["custom_scalars__config__"]
    ]
    first = layouts[0].category[0]
    assert first.title == "Loss"
    assert list(first.chart[0].multiline.tag) == ["loss/.*"]
    assert (first.chart[1].margin.series[0].value, first.chart[1].margin.series[0].upper) == ("m", "hi")
    assert layouts[1].category[0].chart[0].multiline.tag == ["acc"]


def test_mesh_writes_one_series_per_component(logdir) -> None:
    vertices = np.random.default_rng(0).random((1, 8, 3))
    faces = np.array([[[0, 1, 2], [2, 3, 4]]])
    colors = np.full((1, 8, 3), 200)
    with SummaryWriter(logdir) as w:
        w.add_mesh(
            "cube", vertices, colors=colors, faces=faces, config_dict={"camera": {"fov": 60}}, global_step=2
        )
        with pytest.raises(ValueError, match="vertices"):
            w.add_mesh("bad", np.zeros((8, 3)))
    values = _values(logdir)
    assert set(values) == {"cube_VERTEX", "cube_FACE", "cube_COLOR"}
    meta = plugins_pb2.MeshPluginData.FromString(values["cube_FACE"][0][1].metadata.plugin_data.content)
    assert (meta.name, list(meta.shape), meta.components) == ("cube", [1, 2, 3], 0b1110)
    assert json.loads(meta.json_config) == {"camera": {"fov": 60}}
    np.testing.assert_allclose(make_ndarray(values["cube_VERTEX"][0][1].tensor), vertices.astype(np.float32))
    # As torch writes them: every component float32, no display name.
    for tag, expected in (("cube_FACE", faces), ("cube_COLOR", colors)):
        array = make_ndarray(values[tag][0][1].tensor)
        assert array.dtype == np.float32
        np.testing.assert_array_equal(array, expected)
        assert values[tag][0][1].metadata.display_name == ""


# -- video and boxes ----------------------------------------------------------------------------


def _image(value) -> Image.Image:
    assert value.WhichOneof("value") == "image"  # torch's Summary.Image
    image = Image.open(io.BytesIO(value.image.encoded_image_string))
    assert image.size == (value.image.width, value.image.height)
    return image


def test_video_is_an_animated_gif_grid(logdir) -> None:
    video = np.random.default_rng(0).random((3, 5, 3, 16, 12))  # 3 videos, 5 frames
    with SummaryWriter(logdir) as w:
        w.add_video("vid", video, 1, fps=10)
        with pytest.raises(ValueError, match="vid_tensor"):
            w.add_video("vid", np.zeros((2, 3)), 1)
    image = _image(_values(logdir)["vid"][0][1])
    assert image.format == "GIF"
    assert image.n_frames == 5
    assert image.size == (3 * 12, 16)
    assert image.info["duration"] == 100


def test_image_with_boxes_draws_them(logdir) -> None:
    image = np.zeros((3, 40, 50))
    with SummaryWriter(logdir) as w:
        w.add_image_with_boxes("b", image, np.array([[5, 5, 30, 20]]), 0, labels=["cat"])
        with pytest.raises(ValueError, match="box_tensor"):
            w.add_image_with_boxes("b", image, np.zeros((2, 3)), 0)
        with pytest.raises(ValueError, match="labels"):
            w.add_image_with_boxes("b", image, np.array([[5, 5, 30, 20]]), 0, labels=["a", "b"])
    drawn = np.asarray(_image(_values(logdir)["b"][0][1]).convert("RGB"))
    assert drawn.shape == (40, 50, 3)
    assert tuple(drawn[5, 15]) == (255, 0, 0)  # on the top edge
    assert tuple(drawn[35, 45]) == (0, 0, 0)  # outside every box


def test_scalar_pb_beyond_float32_is_inf_without_a_warning() -> None:
    import warnings

    from tbkit.plugins.scalars.summary import scalar_pb

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = scalar_pb("t", 1e39).value[0]
    assert make_ndarray(value.tensor) == np.inf
