"""What torch.utils.tensorboard, tensorboardX and TensorFlow/Keras write of the rich kinds, read by tbkit.

* torch and tensorboardX write at test time the same calls (add_hparams sub-runs with different
  key sets, add_embedding, add_pr_curve, add_mesh, add_graph, add_custom_scalars); tbkit must
  read back the values given, and the same graphs and curves TensorBoard's own reader decodes;
* the committed TensorFlow fixtures (``fixtures/tf_rich``: the hparams API with domains and a
  TF1 op graph; ``fixtures/keras``: ``write_graph=True``) must give the sessions, metrics and
  statuses TensorBoard's hparams plugin computes, and TensorBoard's graph;
* a ``torch.profiler`` run exported by ``tensorboard_trace_handler`` is found and summarized.

TensorBoard reads through its TensorFlow-free stub (``import _peers`` first), so TensorFlow is
never imported here.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import _peers  # imported before TensorBoard: keeps TensorFlow out of this process
import numpy as np
import pytest
from tensorboard.backend import application
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.plugins import base_plugin
from tensorboard.plugins.hparams import hparams_plugin
from werkzeug.test import Client
from werkzeug.wrappers import Response

import tbkit
from tbkit.provider import HParamDomainType, SessionStatus

pytestmark = [pytest.mark.interop]

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SESSIONS = [  # (sub-run, hparams, metrics): the key sets differ
    ("first", {"lr": 0.01, "optimizer": "adam", "layers": 2}, {"final/accuracy": 0.75, "final/loss": 0.5}),
    (
        "second",
        {"lr": 0.25, "optimizer": "sgd", "batchnorm": True},
        {"final/accuracy": 0.625, "final/loss": 1.5},
    ),
]
LAYOUT = {"losses": {"both": ["Multiline", ["final/.*"]], "band": ["Margin", ["m", "lo", "hi"]]}}
_rng = np.random.default_rng(11)
MAT = _rng.normal(size=(6, 4)).astype(np.float32)
LABELS = ["a", "b", "c", "d", "e", "f"]
THUMBS = _rng.uniform(size=(6, 3, 5, 5)).astype(np.float32)
PR_LABELS = _rng.integers(0, 2, 60)
PR_PREDICTIONS = _rng.uniform(size=60).astype(np.float32)
VERTICES = _rng.uniform(size=(1, 5, 3)).astype(np.float32)
COLORS = _rng.integers(0, 256, size=(1, 5, 3)).astype(np.uint8)
FACES = np.array([[[0, 1, 2], [2, 3, 4]]], dtype=np.int32)


def _model():
    import torch

    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)), torch.zeros(
        2, 4
    )


def _write(kind: str, root: Path) -> Path:
    import torch

    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tensorboardX import SummaryWriter
    out = root / kind
    writer = SummaryWriter(str(out))
    for name, values, metrics in SESSIONS:
        if kind == "torch":
            writer.add_hparams(values, metrics, {"optimizer": ["adam", "sgd"]}, run_name=name, global_step=3)
        else:
            writer.add_hparams(values, metrics, name=name, global_step=3)
    thumbs = torch.from_numpy(THUMBS)
    mat = torch.from_numpy(MAT)
    writer.add_embedding(mat, metadata=LABELS, label_img=thumbs, global_step=2, tag="points")
    writer.add_pr_curve(
        "pr", torch.from_numpy(PR_LABELS), torch.from_numpy(PR_PREDICTIONS), 4, num_thresholds=11
    )
    writer.add_mesh("mesh", torch.from_numpy(VERTICES), colors=torch.from_numpy(COLORS),
                    faces=torch.from_numpy(FACES), global_step=5)  # fmt: skip
    model, example = _model()
    writer.add_graph(model, example)
    writer.add_custom_scalars(LAYOUT)
    writer.close()
    return out


@pytest.fixture(scope="module")
def peer_logdirs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rich_peers")
    return {kind: _write(kind, root) for kind in ("torch", "tbx")}


# -- torch and tensorboardX -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["torch", "tbx"])
def test_hparams_sub_runs(peer_logdirs, kind: str) -> None:
    ld = tbkit.read(str(peer_logdirs[kind]))
    df = ld.hparams().set_index("run")
    assert sorted(df.index) == ["first", "second"]
    assert ld.problems().empty
    for name, values, metrics in SESSIONS:
        row = df.loc[name]
        assert row["status"] == "success"
        for key, value in values.items():
            assert row[key] == value, (name, key)
        for tag, value in metrics.items():
            assert row[tag] == np.float32(value), (name, tag)
    assert str(df["layers"].dtype) == "float64" and np.isnan(df.loc["second", "layers"])
    # tensorboardX writes a bool as a bool; torch as the number 1.0 (TensorBoard shows 1 too)
    assert str(df["batchnorm"].dtype) == ("float64" if kind == "torch" else "boolean")
    assert df["batchnorm"].isna().tolist() == [True, False]
    assert str(df["optimizer"].dtype) == "string"
    hparams = {h.name: h for h in ld.provider.list_hyperparameters().hyperparameters}
    assert set(hparams) == {"lr", "optimizer", "layers", "batchnorm"}
    if kind == "torch":  # hparam_domain_discrete
        assert hparams["optimizer"].domain_type is HParamDomainType.DISCRETE_STRING
        assert set(hparams["optimizer"].domain) == {"adam", "sgd"}
    assert hparams["lr"].domain == (0.01, 0.25) and hparams["lr"].differs


@pytest.mark.parametrize("kind", ["torch", "tbx"])
def test_embedding(peer_logdirs, kind: str) -> None:
    ld = tbkit.read(str(peer_logdirs[kind]))
    (row,) = ld.embeddings().to_dict("records")
    assert row["run"] == "." and row["step"] == 2 and row["shape"] == MAT.shape
    np.testing.assert_allclose(row["tensor"], MAT, rtol=1e-6)
    assert row["metadata"]["label"].tolist() == LABELS
    assert row["sprite_image_dim"] == (5, 5)
    sprite = ld.decode_image(row["sprite"])
    assert sprite.shape[:2] == (15, 15)  # ceil(sqrt(6)) = 3 thumbnails a side
    files = {f.path for f in ld.provider.list_plugin_files("projector")["."]}
    assert "projector_config.pbtxt" in files and any(p.endswith("tensors.tsv") for p in files)


@pytest.mark.parametrize("kind", ["torch", "tbx"])
def test_pr_curve_matches_tensorboard(peer_logdirs, kind: str) -> None:
    (row,) = tbkit.read(str(peer_logdirs[kind])).pr_curves().to_dict("records")
    (step, _, theirs), *_ = _peers.tensor_values(_peers.accumulate_plugin(peer_logdirs[kind]), "pr")
    assert (row["tag"], row["step"]) == ("pr", step) == ("pr", 4)
    for i, name in enumerate(["tp", "fp", "tn", "fn", "precision", "recall"]):
        np.testing.assert_array_equal(row[name], theirs[i].astype(np.float64))
    assert row["tp"][0] == PR_LABELS.sum() and row["fp"][0] == len(PR_LABELS) - PR_LABELS.sum()


@pytest.mark.parametrize("kind", ["torch", "tbx"])
def test_mesh_and_custom_scalars(peer_logdirs, kind: str) -> None:
    ld = tbkit.read(str(peer_logdirs[kind]))
    (mesh,) = ld.meshes().to_dict("records")
    assert (mesh["tag"], mesh["step"]) == ("mesh", 5)
    np.testing.assert_array_equal(mesh["vertices"], VERTICES)
    np.testing.assert_array_equal(mesh["colors"], COLORS)
    np.testing.assert_array_equal(mesh["faces"], FACES)
    (layout,) = ld.custom_scalars()["layout"]
    assert layout == LAYOUT


@pytest.mark.parametrize("kind", ["torch", "tbx"])
def test_op_graph_matches_tensorboard(peer_logdirs, kind: str) -> None:
    ld = tbkit.read(str(peer_logdirs[kind]))
    graphs = ld.graphs()
    assert set(graphs["kind"]) == {"op_graph", "run_metadata"}  # torch also writes its RunMetadata
    graphs = graphs[graphs.kind == "op_graph"].reset_index(drop=True)
    assert graphs["tag"].tolist() == ["__run_graph__"]
    theirs = _peers.accumulate(peer_logdirs[kind]).Graph()
    nodes = ld.graph_nodes()
    assert set(nodes["kind"]) == {"op_graph"}
    assert nodes["name"].tolist() == [n.name for n in theirs.node]
    assert nodes["op"].tolist() == [n.op for n in theirs.node]
    assert nodes["inputs"].tolist() == [list(n.input) for n in theirs.node]
    assert graphs["nodes"][0] == len(theirs.node)
    assert any(op == "aten::linear" or op.endswith("linear") for op in nodes["op"])


# -- TensorFlow fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tb_hparams_client() -> Client:
    logdir = str(FIXTURES / "tf_rich")
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    context = base_plugin.TBContext(logdir=logdir, multiplexer=multiplexer, data_provider=provider)
    return Client(application.TensorBoardWSGI([hparams_plugin.HParamsPlugin(context)]), Response)


def _post(client: Client, route: str, body: dict) -> dict:
    response = client.post(
        route, data=json.dumps(body), headers={"X-XSRF-Protected": "1"}, content_type="application/json"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def test_tf_hparams_match_tensorboards_hparams_plugin(tb_hparams_client) -> None:
    ld = tbkit.read(str(FIXTURES / "tf_rich"))
    experiment = ld.provider.list_hyperparameters()
    theirs = _post(tb_hparams_client, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h.name for h in experiment.hyperparameters} == {h["name"] for h in theirs["hparamInfos"]}
    by_name = {h.name: h for h in experiment.hyperparameters}
    for info in theirs["hparamInfos"]:
        ours = by_name[info["name"]]
        if "domainInterval" in info:
            assert ours.domain_type is HParamDomainType.INTERVAL
            assert ours.domain == (info["domainInterval"]["minValue"], info["domainInterval"]["maxValue"])
        else:
            assert list(ours.domain) == info["domainDiscrete"]
    assert {(m.group, m.tag) for m in experiment.metrics} == {
        (m["name"].get("group", ""), m["name"]["tag"]) for m in theirs["metricInfos"]
    }
    groups = _post(tb_hparams_client, "/data/plugin/hparams/session_groups", {
        "experimentName": "", "startIndex": 0, "sliceSize": 10,
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": [{"hparam": h["name"]} for h in theirs["hparamInfos"]],
    })["sessionGroups"]  # fmt: skip
    tb_sessions = {s["name"]: (g["hparams"], s) for g in groups for s in g["sessions"]}
    ours_groups = ld.provider.read_hyperparameters()
    ours_sessions = {s.run: (g.hparams, s) for g in ours_groups for s in g.sessions}
    assert set(ours_sessions) == set(tb_sessions) == {"session_a", "session_b"}
    for name, (tb_hparams, tb_session) in tb_sessions.items():
        our_hparams, session = ours_sessions[name]
        assert dict(our_hparams) == tb_hparams
        assert session.status is SessionStatus.UNKNOWN  # hp.hparams writes no session end
        assert tb_session.get("status", "STATUS_UNKNOWN") == "STATUS_UNKNOWN"
        assert session.start_time_secs == tb_session["startTimeSecs"]
        tb_metrics = {(m["name"].get("group", ""), m["name"]["tag"]): m for m in tb_session["metricValues"]}
        our_metrics = {(m.group, m.tag): m for m in session.metrics}
        assert set(our_metrics) == set(tb_metrics)
        for key, metric in tb_metrics.items():
            assert our_metrics[key].value == metric["value"]
            assert our_metrics[key].step == metric["trainingStep"]


def test_tf_hparams_frame_matches_what_was_logged() -> None:
    import sys

    sys.path.insert(0, str(FIXTURES))
    import make_fixtures  # numpy only at import time; TensorFlow only inside its makers

    df = tbkit.read(str(FIXTURES / "tf_rich")).hparams().set_index("run")
    for run, values, accuracy, loss in make_fixtures.TF_HPARAMS:
        assert {k: df.loc[run, k] for k in values} == values
        assert df.loc[run, "accuracy"] == accuracy and df.loc[run, "validation/loss"] == loss
    assert df["batchnorm"].isna().tolist() == [False, True] and str(df["dropout"].dtype) == "float64"


def test_tf_op_graph_and_keras_model_match_tensorboard() -> None:
    ld = tbkit.read(str(FIXTURES / "tf_rich"))
    theirs = _peers.accumulate(FIXTURES / "tf_rich" / "graph").Graph()
    nodes = ld.graph_nodes()
    assert nodes["name"].tolist() == [n.name for n in theirs.node] == ["x", "w", "y", "out"]
    assert nodes.set_index("name").loc["y", "inputs"] == ["x", "w"]
    assert nodes.set_index("name").loc["x", "shape"] == [[-1, 3]]
    keras = tbkit.read(str(FIXTURES / "keras"))
    graphs = keras.graphs()
    (config,) = graphs[graphs.kind == "keras"]["graph"]
    (_, _, tb_value), *_ = _peers.tensor_values(
        _peers.accumulate_plugin(FIXTURES / "keras" / "train"), "keras"
    )
    assert config == json.loads(tb_value.item())
    layers = keras.graph_nodes()
    assert layers["op"].tolist() == [layer["class_name"] for layer in config["config"]["layers"]]
    assert layers["inputs"].tolist()[-1] == [layers["name"].tolist()[-2]]


# -- torch.profiler's tensorboard_trace_handler ------------------------------------------------------


def test_torch_profiler_trace(tmp_path) -> None:
    import torch

    model, example = _model()
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        on_trace_ready=torch.profiler.tensorboard_trace_handler(str(tmp_path / "prof"), worker_name="rank0"),
    ):
        model(example)
    ld = tbkit.read(str(tmp_path))
    (row,) = ld.traces(top=None).to_dict("records")
    (path,) = (tmp_path / "prof").glob("rank0.*.pt.trace.json*")
    raw = path.read_bytes()
    events = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["traceEvents"]
    assert (row["run"], row["worker"]) == ("prof", "rank0") and row["session"] in path.name
    assert row["events"] == len(events)
    ops = row["top_ops"]
    complete = [e for e in events if e.get("ph") == "X"]
    assert int(ops["count"].sum()) == len(complete)
    linear = ops[ops["name"] == "aten::linear"]
    assert int(linear["count"].sum()) == sum(e["name"] == "aten::linear" for e in complete) == 2
    assert (ops["self_us"] <= ops["total_us"] + 1e-6).all()
    assert ld.problems().empty
