"""The drop-in acceptance test: one script, run with torch's ``SummaryWriter`` and with tbkit's.

:func:`script` calls every public method of ``torch.utils.tensorboard.SummaryWriter`` with fixed
data (explicit wall times where a method takes one); it writes ``<tmp>/torch`` through torch's
writer and ``<tmp>/tbkit`` through tbkit's. Then the real peers read both directories and must
return the same tags, steps and values for both:

* TensorBoard's legacy ``EventAccumulator`` (everything kept), run by run;
* tbparse's ``SummaryReader`` (in a subprocess: it decodes images and audio with TensorFlow,
  which costs seconds and memory that this process does without);
* the real ``tensorboard`` server (its Rust data server) over HTTP, one for the module;
* TensorBoard's hparams plugin (in-process) over torch's documented five-call hparams loop.

The legitimate differences normalised here, each where it is compared:

* PNG bytes and colour type: tbkit encodes a grey image as a one-channel PNG where torch makes
  it RGB; decoded pixels are compared (a one-channel image as its grey value in R, G and B).
* hparams sessions: torch writes every ``add_hparams`` session into a sub-run named
  ``<log_dir>/<time.time()>``; tbkit writes the first into the writer's own run and later ones
  into such sub-runs. Sessions are compared as a set (their hparams, metrics and status), the
  session tags (``_hparams_/…`` and the metric scalars) are left out of the run-by-run comparison.
* wall times where the script passed none (custom scalars, graph, hparams, embeddings).
* tbkit's ``source_metadata`` in the file-version event (not read by any of these peers).

Also normalised, beyond that list (each commented where it is done): add_graph's node names
(tbkit's documented layout, ``tbkit/plugins/graphs/torch_graph.py``: the same ops, scopes, IO
nodes and edges are compared); the digits of ``tensors.tsv`` (compared as float32, as the
projector parses it); the order of same-step mesh components served by the Rust data server
(not fixed, for torch's run as for tbkit's); the summary metadata's ``data_class``.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib.util
import json
import math
import os
import pickle
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _peers  # noqa: F401 - imported before TensorBoard and torch: keeps TensorFlow out of this process
import numpy as np
import pytest
from _peers import accumulate, decode_wav
from _tensorboard import Server, running_tensorboard
from google.protobuf import json_format
from PIL import Image
from tensorboard.backend import application
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.plugins import base_plugin
from tensorboard.plugins.custom_scalar import custom_scalars_plugin
from tensorboard.plugins.hparams import api_pb2, hparams_plugin
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_data_pb2
from tensorboard.util import tensor_util
from werkzeug.test import Client
from werkzeug.wrappers import Response

import tbkit

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.slow, pytest.mark.interop]

PEERS = ("torch", "tbkit")
WALL0 = 1_700_000_000.0
SESSION = "<hparams session>"
"""The run key of every hparams session's data (see the module docstring)."""
SESSION_RUN = re.compile(r"\d+\.\d+")  # torch's (and tbkit's) ``str(time.time())`` sub-run names
HPARAM_TAGS = ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info")
METRICS = ("hparam/accuracy", "hparam/loss")
# No bool hparam here: torch writes a bool as the number 1.0 or 0.0 typed DATA_TYPE_FLOAT64 (its
# ``isinstance(v, (int, float))`` branch comes before its bool branch), tbkit as a bool typed
# DATA_TYPE_BOOL. test_bool_hparam pins both, so that the difference is seen once, there.
SESSIONS = [
    ({"lr": 0.1, "bsize": 16, "optimizer": "sgd"}, {"hparam/accuracy": 0.5, "hparam/loss": 2}),
    ({"lr": 0.2, "bsize": 32, "optimizer": "adam"}, {"hparam/accuracy": 0.7, "hparam/loss": 1}),
]
NO_WALLTIME_TAGS = {"custom_scalars__config__", *HPARAM_TAGS, *METRICS}
"""Tags written by methods that take no ``walltime``: their wall times are the clock's."""
# torch's add_video needs moviepy's ``moviepy.editor`` (gone in moviepy 2); without it torch
# prints "add_video needs package moviepy" and writes an empty Summary.Value. The call is then
# left out for both writers.
HAVE_MOVIEPY = importlib.util.find_spec("moviepy") is not None and (
    importlib.util.find_spec("moviepy.editor") is not None
)


class Tiny(torch.nn.Module):
    """The model of ``add_graph``: one linear layer and a ReLU, fixed weights."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        with torch.no_grad():
            self.fc.weight.copy_(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 10)
            self.fc.bias.fill_(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


def _figure() -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.2, 1), dpi=20)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 2], color="blue")
    ax.set_axis_off()
    return fig


def _onnx_model() -> Any:
    """A two-node ONNX model (MatMul then Relu), built with onnx's helpers."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"), helper.make_node("Relu", ["h"], ["y"])],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor("w", TensorProto.FLOAT, [3, 2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])],
    )
    return helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)])


def script(writer: Any, onnx_path: Path) -> None:
    """The same calls, every public method of torch's ``SummaryWriter``, on ``writer``."""
    rng = np.random.default_rng(3)
    assert Path(writer.get_logdir()).name in PEERS
    for step in range(3):
        writer.add_scalar("scalar/default", 0.5 * step + 0.1, step, walltime=WALL0 + step)
        writer.add_scalar("scalar/new_style", 1.5 * step, step, walltime=WALL0 + step, new_style=True)
        writer.add_scalar("scalar/tensor_value", torch.tensor(step / 3), step, walltime=WALL0 + step)
        writer.add_scalars("group", {"a": step, "b": -2.5 * step}, step, walltime=WALL0 + step)
    values = rng.normal(size=300)
    writer.add_histogram("hist/default", values, 1, walltime=WALL0 + 1)
    writer.add_histogram("hist/int", torch.from_numpy(values), 1, bins=7, walltime=WALL0 + 1)
    writer.add_histogram("hist/edges", values, 1, bins=np.linspace(-3, 3, 7), walltime=WALL0 + 1)
    writer.add_histogram("hist/ints", rng.integers(0, 5, 40), 2, walltime=WALL0 + 2)
    writer.add_histogram_raw(
        "hist/raw",
        min=0.0,
        max=3.0,
        num=6,
        sum=9.0,
        sum_squares=19.0,
        bucket_limits=[1.0, 2.0, 3.0],
        bucket_counts=[1, 2, 3],
        global_step=2,
        walltime=WALL0 + 2,
    )
    writer.add_image("img/chw_float", rng.random((3, 4, 5)).astype(np.float32), 0, walltime=WALL0)
    u8 = rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)
    writer.add_image("img/hwc_uint8", u8, 1, walltime=WALL0 + 1, dataformats="HWC")
    writer.add_image(
        "img/hw_gray", rng.random((4, 5)).astype(np.float32), 2, walltime=WALL0 + 2, dataformats="HW"
    )
    writer.add_images(
        "imgs", torch.from_numpy(rng.random((3, 3, 4, 5)).astype(np.float32)), 3, walltime=WALL0 + 3
    )
    writer.add_image_with_boxes(
        "boxes",
        np.full((3, 16, 20), 0.25, np.float32),
        np.array([[1, 1, 8, 8], [4, 5, 18, 14]]),
        4,
        walltime=WALL0 + 4,
    )
    writer.add_figure("fig", _figure(), 5, walltime=WALL0 + 5)
    if HAVE_MOVIEPY:
        writer.add_video(
            "video", rng.random((1, 3, 3, 6, 8)).astype(np.float32), 5, fps=2, walltime=WALL0 + 5
        )
    t = np.arange(400) / 8000
    writer.add_audio("audio", (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 6, 8000, WALL0 + 6)
    writer.add_text("notes", "hello **markdown**", 7, walltime=WALL0 + 7)
    writer.add_text("notes", "second `line`", 8, walltime=WALL0 + 8)
    labels, predictions = rng.integers(0, 2, 50), rng.random(50)
    writer.add_pr_curve("pr", labels, predictions, 8, num_thresholds=11, walltime=WALL0 + 8)
    writer.add_pr_curve_raw(
        "pr_raw",
        [5, 3, 1],
        [4, 2, 0],
        [0, 2, 4],
        [0, 2, 4],
        [0.55, 0.6, 1.0],
        [1.0, 0.6, 0.2],
        9,
        3,
        None,
        WALL0 + 9,
    )
    writer.add_custom_scalars(
        {
            "Losses": {
                "both": ["Multiline", ["scalar/default", "scalar/new_style"]],
                "band": ["Margin", ["scalar/default", "scalar/tensor_value", "scalar/new_style"]],
            }
        }
    )
    writer.add_custom_scalars_multilinechart(["group"], category="Groups", title="a and b")
    writer.add_custom_scalars_marginchart(
        ["scalar/default", "group", "group"], category="Groups", title="band"
    )
    writer.add_mesh(
        "mesh",
        torch.from_numpy(rng.random((1, 4, 3)).astype(np.float32)),
        colors=torch.from_numpy(rng.integers(0, 256, (1, 4, 3))),
        faces=torch.tensor([[[0, 1, 2], [1, 2, 3]]]),
        config_dict={"camera": {"cls": "PerspectiveCamera", "fov": 75}},
        global_step=10,
        walltime=WALL0 + 10,
    )
    writer.add_embedding(
        torch.from_numpy(rng.random((5, 3)).astype(np.float32)),
        metadata=list("abcde"),
        label_img=torch.from_numpy(rng.random((5, 3, 4, 4)).astype(np.float32)),
        global_step=11,
        tag="emb",
    )
    writer.add_tensor("tensor", torch.arange(6, dtype=torch.float32).reshape(2, 3), 12, walltime=WALL0 + 12)
    writer.add_graph(Tiny(), torch.zeros(1, 3))
    writer.add_onnx_graph(str(onnx_path))  # the later run graph: what TensorBoard shows
    for hparams, metrics in SESSIONS:
        writer.add_hparams(hparams, metrics)
    writer.flush()
    writer.close()


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import onnx
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("drop_in")
    onnx_path = root.parent / f"{root.name}.onnx"
    onnx.save(_onnx_model(), str(onnx_path))
    logs = root / "logs"
    script(TorchWriter(str(logs / "torch")), onnx_path)
    script(tbkit.SummaryWriter(str(logs / "tbkit")), onnx_path)
    return logs


def test_tbkit_has_every_public_method_of_torch() -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    # torch's one-underscore names (_encode, _get_file_writer) are private helpers, not API.
    methods = [m for m in dir(TorchWriter) if not m.startswith("__")]
    public = {m for m in methods if not m.startswith("_")}
    assert public <= set(dir(tbkit.SummaryWriter)), sorted(public - set(dir(tbkit.SummaryWriter)))
    called = set(re.findall(r"writer\.(\w+)\(", _source(script)))  # add_video only with moviepy.editor
    assert public <= called, sorted(public - called)


def _source(function: Callable[..., Any]) -> str:
    import inspect

    return inspect.getsource(function)


# -- the runs of a logdir ----------------------------------------------------------------


def _runs(top: Path) -> dict[str, Path]:
    """Every run directory under ``top`` (one holding an event file), by its name relative to ``top``."""
    runs = {}
    for file in sorted(top.rglob("events.out.tfevents.*")):
        name = file.parent.relative_to(top).as_posix()
        runs[name] = file.parent
    return runs


def _is_session_run(name: str) -> bool:
    return SESSION_RUN.fullmatch(name) is not None


def test_same_runs(logdir: Path) -> None:
    for peer in PEERS:
        runs = _runs(logdir / peer)
        assert {name for name in runs if not _is_session_run(name)} == {".", "group_a", "group_b"}
    # torch: one sub-run per session; tbkit: the first in its own run, the second in a sub-run.
    assert sum(map(_is_session_run, _runs(logdir / "torch"))) == len(SESSIONS)
    assert sum(map(_is_session_run, _runs(logdir / "tbkit"))) == len(SESSIONS) - 1
    assert (logdir / "torch" / "projector_config.pbtxt").read_text() == (
        logdir / "tbkit" / "projector_config.pbtxt"
    ).read_text()
    for name in ("metadata.tsv", "tensors.tsv", "sprite.png"):
        ours, theirs = (logdir / peer / "00011" / "emb" / name for peer in ("tbkit", "torch"))
        if name == "sprite.png":
            np.testing.assert_array_equal(_rgb(ours.read_bytes()), _rgb(theirs.read_bytes()))
        elif name == "tensors.tsv":
            # torch writes each float32 as the repr of its float64 value, tbkit with the 9 digits
            # that give the float32 back: the projector parses both to the same float32 values.
            ours_mat, theirs_mat = (np.loadtxt(p, delimiter="\t", dtype=np.float32) for p in (ours, theirs))
            np.testing.assert_array_equal(ours_mat, theirs_mat)
        else:
            assert ours.read_text() == theirs.read_text(), name


COMPARED_RUNS = (".", "group_a", "group_b")


# -- pixels ------------------------------------------------------------------------------


def _rgb(data: bytes) -> np.ndarray:
    """An encoded image's pixels, as RGB(A) uint8: a grey image as its value in R, G and B.

    tbkit writes a one-channel PNG for a grey image where torch writes three equal channels.
    """
    import io

    with Image.open(io.BytesIO(data)) as image:
        mode = "RGBA" if "A" in image.getbands() else "RGB"
        return np.asarray(image.convert(mode))


# -- a: TensorBoard's EventAccumulator ------------------------------------------------------


@dataclass
class Accumulated:
    """Both peers' ``EventAccumulator`` per run, and their hparams sessions."""

    runs: dict[str, dict[str, Any]]  # peer -> run name -> EventAccumulator
    sessions: dict[str, list[tuple]]  # peer -> sorted sessions


def _hparams_metadata(run: Path) -> dict[str, Any]:
    """Tag -> ``HParamsPluginData`` of the hparams summaries in a run's event files.

    Read from the events by TensorBoard's own loader: torch writes these summaries with
    metadata but no tensor, which the legacy ``EventAccumulator`` does not keep (see
    test_accumulator_session_tags).
    """
    from tensorboard.backend.event_processing import event_file_loader

    found = {}
    for file in sorted(run.glob("events.out.tfevents.*")):
        for event in event_file_loader.LegacyEventFileLoader(str(file)).Load():
            for value in event.summary.value:
                if value.tag in HPARAM_TAGS:
                    found[value.tag] = hparams_data_pb2.HParamsPluginData.FromString(
                        value.metadata.plugin_data.content
                    )
    return found


def _session_of(run: Path, acc: Any) -> tuple | None:
    """``(hparams, metrics, status)`` of the hparams session in a run, or None."""
    found = _hparams_metadata(run)
    if "_hparams_/session_start_info" not in found:
        return None
    start = found["_hparams_/session_start_info"].session_start_info
    hparams = tuple(sorted((k, json_format.MessageToDict(v)) for k, v in start.hparams.items()))
    metrics = tuple(sorted((tag, [(e.step, e.value) for e in acc.Scalars(tag)]) for tag in METRICS))
    return hparams, metrics, found["_hparams_/session_end_info"].session_end_info.status


def _experiment_of(run: Path) -> str | None:
    """The experiment (hparam and metric infos) in a run, its creation time left out, as JSON."""
    found = _hparams_metadata(run)
    if "_hparams_/experiment" not in found:
        return None
    experiment = found["_hparams_/experiment"].experiment
    experiment.ClearField("time_created_secs")
    return json.dumps(json_format.MessageToDict(experiment), sort_keys=True)


@pytest.fixture(scope="module")
def accumulated(logdir: Path) -> Accumulated:
    runs: dict[str, dict[str, Any]] = {}
    sessions: dict[str, list[tuple]] = {}
    for peer in PEERS:
        paths = _runs(logdir / peer)
        runs[peer] = {name: accumulate(path) for name, path in paths.items()}
        found = (_session_of(paths[name], acc) for name, acc in runs[peer].items())
        sessions[peer] = sorted(session for session in found if session is not None)
    return Accumulated(runs, sessions)


def _tags(acc: Any, run: str) -> dict[str, Any]:
    """``Tags()`` of a run, the hparams session's tags left out of the writer's own run."""
    tags = acc.Tags()
    if run == ".":
        tags["scalars"] = [t for t in tags["scalars"] if t not in METRICS]
        tags["tensors"] = [t for t in tags["tensors"] if t not in HPARAM_TAGS]
    return tags


@pytest.mark.parametrize("run", COMPARED_RUNS)
def test_accumulator_tags(accumulated: Accumulated, run: str) -> None:
    torch_tags, tbkit_tags = (_tags(accumulated.runs[peer][run], run) for peer in PEERS)
    for kind in (
        "images",
        "audio",
        "histograms",
        "scalars",
        "distributions",
        "tensors",
        "graph",
        "meta_graph",
    ):
        assert (
            sorted(tbkit_tags[kind]) == sorted(torch_tags[kind])
            if isinstance(torch_tags[kind], list)
            else tbkit_tags[kind] == torch_tags[kind]
        ), kind


def test_accumulator_run_metadata_tags(accumulated: Accumulated) -> None:
    torch_tags, tbkit_tags = (accumulated.runs[peer]["."].Tags() for peer in PEERS)
    assert torch_tags["run_metadata"] == ["step1"]  # torch's add_graph writes a RunMetadata "step1"
    assert tbkit_tags["run_metadata"] == torch_tags["run_metadata"]


def _walltime(tag: str, wall_time: float) -> float | None:
    return None if tag in NO_WALLTIME_TAGS else wall_time


@pytest.mark.parametrize("run", COMPARED_RUNS)
def test_accumulator_scalars(accumulated: Accumulated, run: str) -> None:
    torch_acc, tbkit_acc = (accumulated.runs[peer][run] for peer in PEERS)
    for tag in _tags(torch_acc, run)["scalars"]:
        ours, theirs = (
            [(e.step, e.wall_time, e.value) for e in acc.Scalars(tag)] for acc in (tbkit_acc, torch_acc)
        )
        assert ours == theirs, tag
        assert [w for _, w, _ in ours] == [WALL0 + s for s, _, _ in ours], tag


def test_accumulator_histograms(accumulated: Accumulated) -> None:
    torch_acc, tbkit_acc = (accumulated.runs[peer]["."] for peer in PEERS)
    for tag in torch_acc.Tags()["histograms"]:
        ours, theirs = (
            [(e.step, e.wall_time, dataclasses.asdict(e.histogram_value)) for e in acc.Histograms(tag)]
            for acc in (tbkit_acc, torch_acc)
        )
        # Equal but for the sum of squares' last bits: torch's is a BLAS dot product (whose
        # rounding depends on BLAS's threads), tbkit's NumPy's own.
        for (_, _, mine), (_, _, torch_value) in zip(ours, theirs, strict=True):
            assert mine.pop("sum_squares") == pytest.approx(torch_value.pop("sum_squares"), rel=1e-12), tag
        assert ours == theirs, tag
        ours_c, theirs_c = (
            [(e.step, e.wall_time, e.compressed_histogram_values) for e in acc.CompressedHistograms(tag)]
            for acc in (tbkit_acc, torch_acc)
        )
        assert ours_c == theirs_c, tag


def test_accumulator_images(accumulated: Accumulated) -> None:
    torch_acc, tbkit_acc = (accumulated.runs[peer]["."] for peer in PEERS)
    differences = []  # every tag checked, then all pixel differences reported at once
    for tag in torch_acc.Tags()["images"]:
        ours, theirs = tbkit_acc.Images(tag), torch_acc.Images(tag)
        assert len(ours) == len(theirs) == 1, tag
        for mine, torch_event in zip(ours, theirs, strict=True):
            assert (mine.step, mine.wall_time, mine.width, mine.height) == (
                torch_event.step,
                torch_event.wall_time,
                torch_event.width,
                torch_event.height,
            ), tag
            pixels = _rgb(mine.encoded_image_string)
            assert pixels.shape[:2] == (mine.height, mine.width)
            differences += _pixel_difference(tag, pixels, _rgb(torch_event.encoded_image_string))
    assert not differences, "\n".join(differences)


def _pixel_difference(tag: str, ours: np.ndarray, theirs: np.ndarray) -> list[str]:
    if ours.shape != theirs.shape:
        return [f"{tag}: tbkit {ours.shape}, torch {theirs.shape}"]
    differ = np.any(ours != theirs, axis=-1)
    if not differ.any():
        return []
    rows, cols = np.nonzero(differ)
    first = (int(rows[0]), int(cols[0]))
    return [f"{tag}: {differ.sum()} of {differ.size} pixels differ, the first at (row, col) {first}"]


def test_accumulator_audio(accumulated: Accumulated) -> None:
    torch_acc, tbkit_acc = (accumulated.runs[peer]["."] for peer in PEERS)
    for tag in torch_acc.Tags()["audio"]:
        ours, theirs = tbkit_acc.Audio(tag), torch_acc.Audio(tag)
        assert len(ours) == len(theirs) == 1, tag
        for mine, torch_event in zip(ours, theirs, strict=True):
            fields = ("step", "wall_time", "content_type", "sample_rate", "length_frames")
            assert [getattr(mine, f) for f in fields] == [getattr(torch_event, f) for f in fields], tag
            rate, channels, frames = decode_wav(mine.encoded_audio_string)
            assert (rate, channels, len(frames)) == (8000, 1, 400)
            np.testing.assert_array_equal(
                frames, decode_wav(torch_event.encoded_audio_string)[2], err_msg=tag
            )


def _tensor_events(acc: Any, tag: str) -> list[tuple]:
    return [
        (e.step, _walltime(tag, e.wall_time), tensor_util.make_ndarray(e.tensor_proto))
        for e in acc.Tensors(tag)
    ]


def _decoded(tag: str, array: np.ndarray) -> Any:
    """A tensor's value for comparing: a custom-scalars layout parsed (bytes may be ordered otherwise)."""
    if tag == "custom_scalars__config__":
        from tensorboard.plugins.custom_scalar import layout_pb2

        data = array.item() if isinstance(array, np.ndarray) else array
        return json_format.MessageToDict(layout_pb2.Layout.FromString(data))
    if array.dtype == object:
        return array.tolist()
    return array


def _tensor_difference(ours: Any, theirs: Any) -> str:
    """How tbkit's decoded tensor differs from torch's ('' when they are the same)."""
    if not isinstance(theirs, np.ndarray):
        return "" if ours == theirs else f"tbkit {ours!r}, torch {theirs!r}"
    if (ours.dtype, ours.shape) != (theirs.dtype, theirs.shape):
        same = ours.shape == theirs.shape and np.array_equal(ours, theirs)
        return (
            f"tbkit {ours.dtype}{list(ours.shape)}, torch {theirs.dtype}{list(theirs.shape)}"
            f" (values {'equal' if same else 'differ'})"
        )
    return (
        ""
        if np.array_equal(ours, theirs)
        else f"values differ: tbkit {ours.tolist()}, torch {theirs.tolist()}"
    )


@pytest.mark.parametrize("run", COMPARED_RUNS)
def test_accumulator_tensors(accumulated: Accumulated, run: str) -> None:
    torch_acc, tbkit_acc = (accumulated.runs[peer][run] for peer in PEERS)
    differences = []  # every tag checked, then all differences reported at once
    for tag in _tags(torch_acc, run)["tensors"]:
        ours, theirs = _tensor_events(tbkit_acc, tag), _tensor_events(torch_acc, tag)
        assert [e[:2] for e in ours] == [e[:2] for e in theirs], tag
        for (step, _, mine), (_, _, torch_value) in zip(ours, theirs, strict=True):
            difference = _tensor_difference(_decoded(tag, mine), _decoded(tag, torch_value))
            if difference:
                differences.append(f"{tag} at step {step}: {difference}")
        ours_meta, theirs_meta = tbkit_acc.SummaryMetadata(tag), torch_acc.SummaryMetadata(tag)
        # data_class is left out: tbkit sets it, torch leaves it UNKNOWN (TensorBoard then infers
        # it from the plugin name); no reader here shows it.
        for field in (
            "plugin_data.plugin_name",
            "plugin_data.content",
            "display_name",
            "summary_description",
        ):
            got, want = (_field(meta, field) for meta in (ours_meta, theirs_meta))
            if got != want:
                differences.append(f"{tag} metadata {field}: tbkit {got!r}, torch {want!r}")
    assert not differences, "\n".join(differences)


def _field(message: Any, path: str) -> Any:
    for name in path.split("."):
        message = getattr(message, name)
    return message


def test_accumulator_hparams_sessions(accumulated: Accumulated, logdir: Path) -> None:
    # Compared as a set: torch's sessions are all in timestamp sub-runs, tbkit's first in its own run.
    assert accumulated.sessions["tbkit"] == accumulated.sessions["torch"]
    expected = sorted(
        (
            # a protobuf Value: numbers are doubles; a metric is a float32 scalar
            tuple(sorted((k, float(v) if isinstance(v, int | float) else v) for k, v in hparams.items())),
            tuple(sorted((tag, [(0, float(np.float32(value)))]) for tag, value in metrics.items())),
            api_pb2.STATUS_SUCCESS,
        )
        for hparams, metrics in SESSIONS
    )
    assert accumulated.sessions["torch"] == expected
    experiments = {
        peer: sorted(filter(None, map(_experiment_of, _runs(logdir / peer).values()))) for peer in PEERS
    }
    assert len(experiments["torch"]) == len(SESSIONS)
    assert experiments["tbkit"] == experiments["torch"]


def _session_tags(acc: Any, run: str) -> dict[str, list[str]]:
    """The scalar and tensor tags of a session as the legacy ``EventAccumulator`` lists them."""
    tags = acc.Tags()
    if run == ".":  # tbkit's first session: its tags among the writer's own
        return {
            "scalars": [t for t in tags["scalars"] if t in METRICS],
            "tensors": [t for t in tags["tensors"] if t in HPARAM_TAGS],
        }
    return {"scalars": tags["scalars"], "tensors": tags["tensors"]}


def test_accumulator_session_tags(accumulated: Accumulated) -> None:
    found = {
        peer: sorted(
            json.dumps(_session_tags(acc, run), sort_keys=True)
            for run, acc in accumulated.runs[peer].items()
            if set(METRICS) <= set(acc.Tags()["scalars"])
        )
        for peer in PEERS
    }
    assert len(found["torch"]) == len(SESSIONS)
    assert found["tbkit"] == found["torch"]


def _graph_structure(graph: Any) -> tuple:
    """What a run graph computes: op types per scope, IO nodes, edges between them.

    tbkit names op nodes ``<scope>/<op>`` and writes one node per parameter where torch uses
    TorchScript value names and one ``prim::GetAttr`` node per use (documented in
    ``tbkit/plugins/graphs/torch_graph.py``); the structure is the same.
    """
    nodes = {node.name: node for node in graph.node}

    def label(node: Any) -> tuple:
        if node.op == "IO Node":
            return ("io", node.name)
        return (node.op, node.name.rpartition("/")[0])

    ops = collections.Counter(label(n) for n in graph.node if n.op != "prim::GetAttr")
    edges = collections.Counter(
        (label(nodes[ref.partition(":")[0]]), label(node))
        for node in graph.node
        if node.op != "prim::GetAttr"
        for ref in node.input
        if ref.partition(":")[0] in nodes and nodes[ref.partition(":")[0]].op != "prim::GetAttr"
    )
    return ops, edges


def _compute_ops(graph: Any) -> list[str]:
    return sorted(n.op for n in graph.node if n.op not in ("Variable", "Const", "IO Node"))


def test_accumulator_onnx_graph(accumulated: Accumulated) -> None:
    # The run graph TensorBoard shows is the last one written: add_onnx_graph's. A documented
    # improvement on torch (docs/writing.md): torch's converter leaves the model's weights out
    # (the MatMul's input "w" names no node) and names each node by its output (two nodes "y");
    # tbkit writes initializers as Const nodes and names nodes uniquely. The computation is the same.
    torch_graph, tbkit_graph = (accumulated.runs[peer]["."].Graph() for peer in PEERS)
    assert _compute_ops(tbkit_graph) == _compute_ops(torch_graph) == ["MatMul", "Relu"]
    torch_names = {n.name for n in torch_graph.node}
    dangling = {i for n in torch_graph.node for i in n.input if i.split(":")[0] not in torch_names}
    assert dangling == {"w"}  # torch's: the weight is missing
    tbkit_names = {n.name for n in tbkit_graph.node}
    assert all(i.split(":")[0] in tbkit_names for n in tbkit_graph.node for i in n.input)
    assert len(tbkit_names) == len(tbkit_graph.node)  # no two nodes share a name
    assert [n.op for n in tbkit_graph.node if n.name == "w"] == ["Const"]


def _graph_events(run: Path) -> list[Any]:
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.compat.proto import graph_pb2

    graphs = []
    for file in sorted(run.glob("events.out.tfevents.*")):
        for event in event_file_loader.LegacyEventFileLoader(str(file)).Load():
            if event.HasField("graph_def"):
                graphs.append(graph_pb2.GraphDef.FromString(event.graph_def))
    return graphs


def test_add_graph_graph(logdir: Path) -> None:
    # add_graph's graph comes before add_onnx_graph's in the file: read from the events.
    torch_graphs, tbkit_graphs = (_graph_events(logdir / peer) for peer in PEERS)
    assert len(tbkit_graphs) == len(torch_graphs) == 2
    ops, edges = _graph_structure(tbkit_graphs[0])
    assert (ops, edges) == _graph_structure(torch_graphs[0])
    assert ops[("aten::linear", "Tiny/Linear[fc]")] == ops[("aten::relu", "Tiny")] == 1


# -- b: tbparse ----------------------------------------------------------------------------

TBPARSE_KINDS = ("scalars", "tensors", "histograms", "images", "audio", "text", "hparams")
TBPARSE_EXTRA = (
    "dir_name",
    "wall_time",
    "min",
    "max",
    "num",
    "sum",
    "sum_squares",
    "width",
    "height",
    "content_type",
    "length_frames",
    "sample_rate",
)
_TBPARSE_READ = """
import pickle, sys
from tbparse import SummaryReader
frames = {}
for peer in sys.argv[2:]:
    reader = SummaryReader(sys.argv[1] + "/" + peer, extra_columns=set(%r))
    frames[peer] = {kind: getattr(reader, kind).to_dict("records") for kind in %r}
sys.stdout.buffer.write(pickle.dumps(frames))
"""


def _start_tbparse(logdir: Path) -> subprocess.Popen:
    code = textwrap.dedent(_TBPARSE_READ % (TBPARSE_EXTRA, TBPARSE_KINDS))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.Popen(
        [sys.executable, "-c", code, str(logdir), *PEERS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


@pytest.fixture(scope="module")
def tbparse_frames(tbparse_process: subprocess.Popen) -> dict[str, dict[str, list[dict]]]:
    out, err = tbparse_process.communicate(timeout=180)
    assert tbparse_process.returncode == 0, err.decode(errors="replace")[-3000:]
    return pickle.loads(out)


@pytest.fixture(scope="module")
def tbparse_process(logdir: Path, request: pytest.FixtureRequest) -> Iterator[subprocess.Popen]:
    process = _start_tbparse(logdir)
    # TensorBoard starts and loads the logdir while tbparse imports TensorFlow (two cores).
    request.getfixturevalue("server")
    yield process
    if process.poll() is None:
        process.kill()
        process.communicate()


def _row_key(row: dict) -> tuple:
    return tuple((k, _sort_repr(v)) for k, v in sorted(row.items()))


def _sort_repr(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{value.shape}{value.tolist()!r}"
    return repr(value)


def _normalised(kind: str, rows: list[dict]) -> list[dict]:
    """tbparse's rows, with the run of hparams sessions' data and unpassed wall times normalised."""
    out = []
    for row in rows:
        row = dict(row)
        tag, run = row.get("tag"), row.get("dir_name", "")
        if kind == "hparams" or _is_session_run(run) or tag in METRICS:
            row["dir_name"] = SESSION
        if "wall_time" in row and tag in NO_WALLTIME_TAGS:
            row["wall_time"] = None
        if kind == "images" and isinstance(row.get("value"), np.ndarray) and row["value"].shape[-1] == 1:
            # grey: one channel in tbkit's PNG, three in torch's
            row["value"] = np.repeat(row["value"], 3, axis=-1)
        if kind == "tensors" and tag == "custom_scalars__config__":
            row["value"] = _decoded(tag, row["value"])
        out.append(row)
    return sorted(out, key=_row_key)


def _same_value(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, np.ndarray) or isinstance(ours, np.ndarray):
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        return ours.dtype == theirs.dtype and ours.shape == theirs.shape and np.array_equal(ours, theirs)
    if isinstance(theirs, float) and isinstance(ours, float) and math.isnan(theirs):
        return math.isnan(ours)
    return bool(ours == theirs)


@pytest.mark.parametrize("kind", TBPARSE_KINDS)
def test_tbparse_frames(tbparse_frames: dict[str, dict[str, list[dict]]], kind: str) -> None:
    torch_rows, tbkit_rows = (_normalised(kind, tbparse_frames[peer][kind]) for peer in PEERS)
    assert torch_rows, kind
    assert [sorted(r) for r in tbkit_rows] == [sorted(r) for r in torch_rows], kind
    assert [(r.get("dir_name"), r.get("tag"), r.get("step")) for r in tbkit_rows] == [
        (r.get("dir_name"), r.get("tag"), r.get("step")) for r in torch_rows
    ], kind
    differences = []
    for mine, theirs in zip(tbkit_rows, torch_rows, strict=True):
        for column, value in theirs.items():
            if column == "sum_squares":  # torch's is a BLAS dot product: equal to rounding
                if mine[column] != pytest.approx(value, rel=1e-12):
                    differences.append(f"{theirs.get('tag')}: sum_squares {mine[column]} != {value}")
                continue
            if not _same_value(mine[column], value):
                where = (theirs.get("dir_name"), theirs.get("tag"), theirs.get("step"), column)
                differences.append(f"{where}: tbkit {_brief(mine[column])}, torch {_brief(value)}")
    assert not differences, "\n".join(differences)


def _brief(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)} {value.reshape(-1)[:8].tolist()}"
    return repr(value)


# -- c: the real TensorBoard server ------------------------------------------------------


def _expected_runs(logdir: Path) -> set[str]:
    return {peer if name == "." else f"{peer}/{name}" for peer in PEERS for name in _runs(logdir / peer)}


def _loaded(server: Server) -> bool:
    """Everything written is served (the Rust loader fills its index in the background)."""
    if set(server.json("/data/runs")) != _expected_runs(server.logdir):
        return False
    for peer in PEERS:
        if len(server.json("/data/plugin/images/tags").get(peer, {})) != 6:
            return False
        if len(server.json("/data/plugin/text/text", run=peer, tag="notes/text_summary")) != 2:
            return False
        if len(server.json("/data/plugin/audio/audio", run=peer, tag="audio")) != 1:
            return False
        if not server.json("/data/plugin/mesh/tags").get(peer):
            return False
    groups = server.post("/data/plugin/hparams/session_groups", _session_groups_request())["sessionGroups"]
    return sum(len(g["sessions"]) for g in groups) == 2 * len(SESSIONS)


@pytest.fixture(scope="module")
def server(logdir: Path) -> Iterator[Server]:
    log = logdir.parent / "tensorboard.log"
    with running_tensorboard(logdir, log, _loaded) as served:
        yield served


def _served_run(peer: str, run: str) -> str:
    return peer if run == "." else f"{peer}/{run}"


def _served_tags(server: Server, plugin: str, peer: str, run: str) -> list[str]:
    tags = server.json(f"/data/plugin/{plugin}/tags").get(_served_run(peer, run), {})
    tags = sorted(tags)
    return [t for t in tags if t not in METRICS] if run == "." else tags


def test_served_runs(server: Server) -> None:
    runs = set(server.json("/data/runs"))
    assert runs == _expected_runs(server.logdir)
    for peer in PEERS:
        assert {r for r in runs if r.startswith(f"{peer}/") and not _is_session_run(r.split("/", 1)[1])} == {
            f"{peer}/group_a",
            f"{peer}/group_b",
        }


@pytest.mark.parametrize("run", COMPARED_RUNS)
def test_served_scalars(server: Server, run: str) -> None:
    torch_tags, tbkit_tags = (_served_tags(server, "scalars", peer, run) for peer in PEERS)
    assert tbkit_tags == torch_tags
    assert torch_tags
    for tag in torch_tags:
        ours, theirs = (
            server.json("/data/plugin/scalars/scalars", run=_served_run(peer, run), tag=tag)
            for peer in PEERS[::-1]
        )
        assert ours == theirs, tag
        assert [w for w, _, _ in ours] == [WALL0 + s for _, s, _ in ours], tag


def test_served_scalar_tags_metadata(server: Server) -> None:
    tags = server.json("/data/plugin/scalars/tags")
    for run in COMPARED_RUNS:
        ours, theirs = (
            {t: v for t, v in tags[_served_run(peer, run)].items() if t not in METRICS}
            for peer in PEERS[::-1]
        )
        assert ours == theirs, run


def test_served_histograms(server: Server) -> None:
    tags = _served_tags(server, "histograms", "torch", ".")
    assert _served_tags(server, "histograms", "tbkit", ".") == tags
    assert len(tags) == 5
    for plugin in ("histograms", "distributions"):
        route = f"/data/plugin/{plugin}/{plugin}"
        for tag in tags:
            ours, theirs = (server.json(route, run=peer, tag=tag) for peer in PEERS[::-1])
            assert ours == theirs, (plugin, tag)


def test_served_images(server: Server) -> None:
    tags = server.json("/data/plugin/images/tags")
    assert tags["tbkit"] == tags["torch"]
    assert len(tags["torch"]) == 6
    differences = []
    for tag, info in tags["torch"].items():
        for sample in range(info["samples"]):
            ours, theirs = (
                server.json("/data/plugin/images/images", run=peer, tag=tag, sample=sample)
                for peer in PEERS[::-1]
            )
            assert [(e["wall_time"], e["step"]) for e in ours] == [
                (e["wall_time"], e["step"]) for e in theirs
            ]
            for mine, torch_entry in zip(ours, theirs, strict=True):
                blobs = [
                    server.get(f"/data/plugin/images/individualImage?{e['query']}")
                    for e in (mine, torch_entry)
                ]
                differences += _pixel_difference(tag, _rgb(blobs[0]), _rgb(blobs[1]))
    assert not differences, "\n".join(differences)


def test_served_audio(server: Server) -> None:
    tags = server.json("/data/plugin/audio/tags")
    assert tags["tbkit"] == tags["torch"]
    for tag in tags["torch"]:
        ours, theirs = (server.json("/data/plugin/audio/audio", run=peer, tag=tag) for peer in PEERS[::-1])
        fields = ("wall_time", "step", "contentType", "label")
        assert [[e.get(f) for f in fields] for e in ours] == [[e.get(f) for f in fields] for e in theirs]
        for mine, torch_entry in zip(ours, theirs, strict=True):
            blobs = [
                server.get(f"/data/plugin/audio/individualAudio?{e['query']}") for e in (mine, torch_entry)
            ]
            (rate, channels, frames), (t_rate, t_channels, t_frames) = map(decode_wav, blobs)
            assert (rate, channels) == (t_rate, t_channels) == (8000, 1)
            np.testing.assert_array_equal(frames, t_frames)


def test_served_text(server: Server) -> None:
    tags = server.json("/data/plugin/text/tags")
    assert tags["tbkit"] == tags["torch"] == ["notes/text_summary"]
    ours, theirs = (
        server.json("/data/plugin/text/text", run=peer, tag="notes/text_summary") for peer in PEERS[::-1]
    )
    assert ours == theirs
    assert [(e["step"], e["wall_time"]) for e in ours] == [(7, WALL0 + 7), (8, WALL0 + 8)]


def test_served_pr_curves(server: Server) -> None:
    tags = server.json("/data/plugin/pr_curves/tags")
    assert tags["tbkit"] == tags["torch"]
    assert set(tags["torch"]) == {"pr", "pr_raw"}
    for tag in tags["torch"]:
        ours, theirs = (
            server.json("/data/plugin/pr_curves/pr_curves", run=peer, tag=tag)[peer] for peer in PEERS[::-1]
        )
        assert ours == theirs, tag


def test_served_mesh(server: Server) -> None:
    tags = server.json("/data/plugin/mesh/tags")
    assert tags["tbkit"] == tags["torch"] == {"mesh": {"samples": 1}}
    # sorted by component: the Rust data server lists a run's tags in no fixed order, so the
    # order of same-step components varies from one run (and one server start) to another.
    ours, theirs = (
        sorted(
            server.json("/data/plugin/mesh/meshes", run=peer, tag="mesh", sample=0),
            key=lambda m: m["content_type"],
        )
        for peer in PEERS[::-1]
    )
    assert ours == theirs
    for content_type in ("VERTEX", "FACE", "COLOR"):
        blobs = [
            server.get(
                "/data/plugin/mesh/data", run=peer, tag="mesh", sample=0, step=10, content_type=content_type
            )
            for peer in PEERS[::-1]
        ]
        assert blobs[0] == blobs[1], content_type
        assert blobs[0], content_type


def _plugin_client(logdir: Path, plugin_classes: list[type]) -> Client:
    """TensorBoard's plugins (its WSGI app over a multiplexer of ``logdir``) behind a test client."""
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(logdir))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
    context = base_plugin.TBContext(logdir=str(logdir), multiplexer=multiplexer, data_provider=provider)
    return Client(application.TensorBoardWSGI([cls(context) for cls in plugin_classes]), Response)


def test_served_custom_scalars_layout(server: Server) -> None:
    # The layout route merges every run's layout: also read each peer's alone, in-process.
    served = server.json("/data/plugin/custom_scalars/layout")
    alone = {}
    for peer in PEERS:
        client = _plugin_client(server.logdir / peer, [custom_scalars_plugin.CustomScalarsPlugin])
        response = client.get("/data/plugin/custom_scalars/layout")
        assert response.status_code == 200
        alone[peer] = json.loads(response.get_data(as_text=True))
    assert alone["tbkit"] == alone["torch"] == served
    assert served["category"]


def test_served_graphs(server: Server) -> None:
    from google.protobuf import text_format
    from tensorboard.compat.proto import graph_pb2

    info = server.json("/data/plugin/graphs/info")
    ours, theirs = ({k: v for k, v in info[peer].items() if k != "run"} for peer in PEERS[::-1])
    assert ours["run_graph"] and theirs["run_graph"]
    graphs = [
        text_format.Parse(server.get("/data/plugin/graphs/graph", run=peer), graph_pb2.GraphDef())
        for peer in PEERS[::-1]
    ]
    # add_onnx_graph's, the last: the same computation (see test_accumulator_onnx_graph for how
    # tbkit's converter differs from torch's, on purpose).
    assert _compute_ops(graphs[0]) == _compute_ops(graphs[1])
    assert ours == theirs  # the tagged RunMetadata ("step1", a profile) of torch's add_graph


def test_served_projector(server: Server) -> None:
    runs = server.json("/data/plugin/projector/runs")
    assert set(PEERS) <= set(runs)
    configs = [server.json("/data/plugin/projector/info", run=peer) for peer in PEERS[::-1]]
    for config in configs:
        for embedding in config["embeddings"]:
            embedding.pop("tensorPath", None), embedding.pop("metadataPath", None)
            embedding.get("sprite", {}).pop("imagePath", None)
    assert configs[0] == configs[1]
    (embedding,) = configs[0]["embeddings"]
    name = embedding["tensorName"]
    for route in ("tensor", "metadata"):
        ours, theirs = (
            server.get(f"/data/plugin/projector/{route}", run=peer, name=name) for peer in PEERS[::-1]
        )
        assert ours == theirs, route
    ours, theirs = (
        server.get("/data/plugin/projector/sprite_image", run=peer, name=name) for peer in PEERS[::-1]
    )
    np.testing.assert_array_equal(_rgb(ours), _rgb(theirs))


def _session_groups_request(hparams: tuple[str, ...] = ("lr", "bsize", "optimizer")) -> dict:
    return {
        "experimentName": "",
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": [{"metric": {"tag": tag}} for tag in METRICS] + [{"hparam": name} for name in hparams],
        "startIndex": 0,
        "sliceSize": 100,
    }


def _sessions_by_peer(groups: list[dict]) -> dict[str, list[tuple]]:
    """Each peer's served sessions: ``(hparams, metric values and steps, status)``, sorted."""
    sessions: dict[str, list[tuple]] = collections.defaultdict(list)
    for group in groups:
        for session in group["sessions"]:
            peer, _, sub = session["name"].partition("/")
            assert sub == "" or _is_session_run(sub), session["name"]
            metrics = sorted(
                (m["name"]["tag"], m["value"], m["trainingStep"], m["name"].get("group", ""))
                for m in session["metricValues"]
            )
            hparams = json.dumps(group["hparams"], sort_keys=True)
            sessions[peer].append((hparams, metrics, session["status"]))
    return {peer: sorted(found) for peer, found in sessions.items()}


def test_served_hparams_sessions(server: Server) -> None:
    groups = server.post("/data/plugin/hparams/session_groups", _session_groups_request())["sessionGroups"]
    sessions = _sessions_by_peer(groups)
    assert sessions["tbkit"] == sessions["torch"]
    assert len(sessions["torch"]) == len(SESSIONS)


def test_served_hparams_experiment(server: Server) -> None:
    experiment = server.post("/data/plugin/hparams/experiment", {"experimentName": ""})
    infos = {h["name"]: h for h in experiment["hparamInfos"]}
    assert set(infos) == {"lr", "bsize", "optimizer"}
    assert infos["lr"]["type"] == "DATA_TYPE_FLOAT64"
    assert infos["optimizer"]["type"] == "DATA_TYPE_STRING"
    assert {m["name"]["tag"] for m in experiment["metricInfos"]} == set(METRICS)
    # The experiment of each peer's logdir alone, read in-process, is the same for both.
    alone = {}
    for peer in PEERS:
        client = _plugin_client(server.logdir / peer, [hparams_plugin.HParamsPlugin])
        alone[peer] = _post(client, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert _without_times(alone["tbkit"]) == _without_times(alone["torch"])


def _without_times(experiment: dict) -> dict:
    return {k: v for k, v in experiment.items() if k != "timeCreatedSecs"}


def _post(client: Client, route: str, body: dict) -> dict:
    response = client.post(
        route, data=json.dumps(body), headers={"X-XSRF-Protected": "1"}, content_type="application/json"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


# -- d: torch's documented hparams loop ----------------------------------------------------


@pytest.fixture(scope="module")
def hparams_loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("hparams_loop")
    for peer, writer_class in (("torch", TorchWriter), ("tbkit", tbkit.SummaryWriter)):
        with writer_class(str(root / "loop" / peer)) as w:  # torch's docstring example, verbatim
            for i in range(5):
                w.add_hparams({"lr": 0.1 * i, "bsize": i}, {"hparam/accuracy": 10 * i, "hparam/loss": 10 * i})
        with writer_class(str(root / "flag" / peer)) as w:
            w.add_hparams({"flag": True}, {"hparam/accuracy": 1.0})
    return root


@pytest.mark.parametrize("peer", PEERS)
def test_hparams_loop_gives_five_sessions(hparams_loop: Path, peer: str) -> None:
    client = _plugin_client(hparams_loop / "loop" / peer, [hparams_plugin.HParamsPlugin])
    experiment = _post(client, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h["name"] for h in experiment["hparamInfos"]} == {"lr", "bsize"}
    assert {m["name"]["tag"] for m in experiment["metricInfos"]} == set(METRICS)
    groups = _post(client, "/data/plugin/hparams/session_groups", _session_groups_request(("lr", "bsize")))
    sessions = []
    for group in groups["sessionGroups"]:
        for session in group["sessions"]:
            metrics = {m["name"]["tag"]: m["value"] for m in session["metricValues"]}
            sessions.append((group["hparams"]["lr"], group["hparams"]["bsize"], metrics, session["status"]))
    expected = [
        (pytest.approx(0.1 * i), i, {"hparam/accuracy": 10 * i, "hparam/loss": 10 * i}, "STATUS_SUCCESS")
        for i in range(5)
    ]
    assert sorted(sessions, key=lambda s: s[1]) == expected


def test_hparams_loop_same_for_both(hparams_loop: Path) -> None:
    served = {}
    for peer in PEERS:
        client = _plugin_client(hparams_loop / "loop" / peer, [hparams_plugin.HParamsPlugin])
        groups = _post(
            client, "/data/plugin/hparams/session_groups", _session_groups_request(("lr", "bsize"))
        )
        served[peer] = _sessions_by_peer(_renamed(groups, peer))[peer]
        experiment = _post(client, "/data/plugin/hparams/experiment", {"experimentName": ""})
        served[f"{peer} experiment"] = _without_times(experiment)
    assert served["tbkit"] == served["torch"]
    assert served["tbkit experiment"] == served["torch experiment"]


def _renamed(groups: dict, peer: str) -> list[dict]:
    """Session groups with each session's run prefixed by ``peer``, as if served from the parent logdir."""
    for group in groups["sessionGroups"]:
        for session in group["sessions"]:
            session["name"] = peer if session["name"] in ("", ".") else f"{peer}/{session['name']}"
    return groups["sessionGroups"]


@pytest.mark.parametrize(
    ("peer", "data_type", "value"), [("tbkit", "DATA_TYPE_BOOL", True), ("torch", "DATA_TYPE_FLOAT64", 1.0)]
)
def test_bool_hparam(hparams_loop: Path, peer: str, data_type: str, value: object) -> None:
    """``{"flag": True}``: tbkit types it DATA_TYPE_BOOL; torch 2.13 writes it as the number 1.0.

    torch's ``hparams()`` tests ``isinstance(v, (int, float))`` before ``isinstance(v, bool)``, and a
    bool is an int: its bool branch is never reached. So TensorBoard shows torch's flag as a number.
    """
    client = _plugin_client(hparams_loop / "flag" / peer, [hparams_plugin.HParamsPlugin])
    experiment = _post(client, "/data/plugin/hparams/experiment", {"experimentName": ""})
    (info,) = experiment["hparamInfos"]
    assert (info["name"], info["type"]) == ("flag", data_type)
    groups = _post(client, "/data/plugin/hparams/session_groups", _session_groups_request(("flag",)))
    served = [g["hparams"]["flag"] for g in groups["sessionGroups"]]
    assert served == [value] and type(served[0]) is type(value)
