"""The rich kinds tbkit's writer writes come back equal through tbkit.read and the DataProvider.

hparams, PR curves, custom scalars, meshes, graphs (op graphs and Keras configs), projector
embeddings and profiler traces; and bad input of each kind becomes a problem naming its file
while the rest of the logdir still reads.
"""

from __future__ import annotations

import gzip
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import tbkit
from tbkit.errors import NotFoundError
from tbkit.hparams import Discrete, HParam, Interval, Metric
from tbkit.plugins.graphs.summary import keras_model_pb
from tbkit.plugins.hparams import metadata as hparams_metadata
from tbkit.plugins.hparams.api import Status
from tbkit.plugins.hparams.summary import session_end_pb, session_start_pb
from tbkit.plugins.pr_curves.summary import compute_curve
from tbkit.proto import event_pb2, graph_pb2, hparams_pb2, summary_pb2, tensor_shape_pb2
from tbkit.provider import HParamDomainType, HParamFilter, HParamSort, SessionStatus

from ._events import header, write

RNG = np.random.default_rng(7)


def _summary_event(summary: summary_pb2.Summary, step: int = 0, wall: float = 5.0) -> event_pb2.Event:
    return event_pb2.Event(step=step, wall_time=wall, summary=summary)


# -- hparams -------------------------------------------------------------------------------------


@pytest.fixture
def hparams_logdir(tmp_path):
    with tbkit.SummaryWriter(str(tmp_path)) as w:
        w.add_hparams_config(
            [HParam("lr", Interval(1e-4, 0.5)), HParam("opt", Discrete(["adam", "sgd"]))],
            [Metric("accuracy", group="eval"), Metric("loss")],
        )
    sessions = [
        ({"lr": 0.01, "opt": "adam", "layers": 2}, 0.9, 0.5, "success"),
        ({"lr": 0.1, "opt": "sgd", "dropout_on": True}, 0.7, 0.8, "failure"),
        ({"lr": 0.3, "opt": "sgd", "layers": 4, "dropout_on": False}, 0.8, 0.6, "running"),
    ]
    for i, (values, acc, loss, status) in enumerate(sessions):
        with tbkit.SummaryWriter(str(tmp_path / f"s{i}")) as w:
            w.add_scalar("loss", loss + 1, 0)  # not the last value
            w.add_hparams(values, {"loss": loss}, global_step=9, status=status)
        with tbkit.SummaryWriter(str(tmp_path / f"s{i}" / "eval")) as w:
            w.add_scalar("accuracy", acc - 0.5, 1)
            w.add_scalar("accuracy", acc, 3)
    return tmp_path, sessions


def test_hparams_frame_one_row_per_session_typed_columns(hparams_logdir):
    path, sessions = hparams_logdir
    df = tbkit.read(str(path)).hparams()
    assert df["run"].tolist() == ["s0", "s1", "s2"]
    assert df["status"].tolist() == [s[3] for s in sessions]
    assert str(df["lr"].dtype) == "float64" and df["lr"].tolist() == [0.01, 0.1, 0.3]
    assert str(df["layers"].dtype) == "float64"  # a missing value never turns numbers into strings
    assert df["layers"][0] == 2 and math.isnan(df["layers"][1]) and df["layers"][2] == 4
    assert str(df["dropout_on"].dtype) == "boolean"
    assert df["dropout_on"].isna().tolist() == [True, False, False]
    assert df["dropout_on"][1] is np.True_ or bool(df["dropout_on"][1]) is True
    assert str(df["opt"].dtype) == "string" and df["opt"].tolist() == ["adam", "sgd", "sgd"]
    # the last value of the sub-run (scalars are float32)
    np.testing.assert_array_equal(df["eval/accuracy"].to_numpy(), np.float32([s[1] for s in sessions]))
    np.testing.assert_array_equal(df["loss"].to_numpy(), np.float32([s[2] for s in sessions]))
    assert (df["end_time"] >= df["start_time"]).all()


def test_hparams_frame_is_the_plugins_builder_over_the_provider(hparams_logdir):
    from tbkit.plugins import registry
    from tbkit.plugins.hparams.frames import hparams_frame

    path, _ = hparams_logdir
    ld = tbkit.read(str(path))
    plugin, builder = registry.frame_builder("hparams")
    assert builder is hparams_frame and plugin.name == "hparams"
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(ld.frame("hparams"), ld.hparams())
    pd_testing.assert_frame_equal(hparams_frame(ld.provider, plugin), ld.hparams())


def test_list_hyperparameters_declared_domains_and_inferred_ones(hparams_logdir):
    path, _ = hparams_logdir
    experiment = tbkit.read(str(path)).provider.list_hyperparameters()
    assert experiment.declared
    by_name = {h.name: h for h in experiment.hyperparameters}
    assert by_name["lr"].domain_type is HParamDomainType.INTERVAL and by_name["lr"].domain == (1e-4, 0.5)
    assert by_name["opt"].domain_type is HParamDomainType.DISCRETE_STRING
    assert set(by_name["opt"].domain) == {"adam", "sgd"}
    # not declared in the config: domains inferred from the sessions' values
    assert by_name["layers"].domain_type is HParamDomainType.INTERVAL and by_name["layers"].domain == (2, 4)
    assert by_name["dropout_on"].domain == (False, True)
    assert all(h.differs for h in experiment.hyperparameters)
    assert {(m.group, m.tag) for m in experiment.metrics} == {("eval", "accuracy"), ("", "loss")}
    limited = tbkit.read(str(path)).provider.list_hyperparameters(limit=2)
    assert len(limited.hyperparameters) == 2


def test_read_hyperparameters_filters_sorts_and_statuses(hparams_logdir):
    path, _ = hparams_logdir
    provider = tbkit.read(str(path)).provider
    groups = provider.read_hyperparameters()
    assert len(groups) == 3
    by_run = {g.sessions[0].run: g for g in groups}
    metric = {(m.group, m.tag): m for m in by_run["s0"].metrics}
    assert metric[("eval", "accuracy")].value == np.float32(0.9) and metric[("eval", "accuracy")].step == 3
    assert by_run["s1"].sessions[0].status is SessionStatus.FAILURE
    sgd = provider.read_hyperparameters(filters=[HParamFilter("opt", values={"sgd"})])
    assert sorted(g.sessions[0].run for g in sgd) == ["s1", "s2"]
    ranked = provider.read_hyperparameters(sort=[HParamSort("eval/accuracy", descending=True)])
    assert [g.sessions[0].run for g in ranked] == ["s0", "s2", "s1"]
    by_layers = provider.read_hyperparameters(sort=[HParamSort("layers")])
    assert [g.sessions[0].run for g in by_layers] == ["s0", "s2", "s1"]  # missing last
    done = provider.read_hyperparameters(statuses=["success", "failure"])
    assert sorted(g.sessions[0].run for g in done) == ["s0", "s1"]
    slim = provider.read_hyperparameters(hparams_to_include=["lr"])
    assert all(set(g.hparams) <= {"lr"} for g in slim)


def test_experiment_inferred_from_sessions_without_an_experiment_summary(tmp_path):
    for i, value in enumerate([0.5, 2.0]):
        start = session_start_pb({"x": value, "name": f"n{i}"}, start_time_secs=1.0, group="g")
        end = session_end_pb(Status.SUCCESS, end_time_secs=2.0)
        write(tmp_path / f"r{i}", [header(), _summary_event(start), _summary_event(end)])
        with tbkit.SummaryWriter(str(tmp_path / f"r{i}" / "val")) as w:
            w.add_scalar("score", float(i), 1)
    provider = tbkit.read(str(tmp_path)).provider
    experiment = provider.list_hyperparameters()
    assert not experiment.declared
    assert {h.name: h.domain for h in experiment.hyperparameters} == {"x": (0.5, 2.0), "name": ("n0", "n1")}
    assert [(m.group, m.tag) for m in experiment.metrics] == [("val", "score")]
    (group,) = provider.read_hyperparameters()  # both sessions share the group name "g"
    assert [s.run for s in group.sessions] == ["r0", "r1"]
    assert group.metrics[0].value == 0.5  # the mean over the group's sessions


def test_unsupported_hparam_type_is_a_problem_naming_the_file(tmp_path):
    data = hparams_pb2.HParamsPluginData(version=0)
    info = data.session_start_info
    info.hparams["ok"].number_value = 3.0
    info.hparams["bad"].list_value.values.add(number_value=1.0)
    value = summary_pb2.Summary.Value(tag=hparams_metadata.SESSION_START_INFO_TAG)
    value.metadata.plugin_data.plugin_name = "hparams"
    value.metadata.plugin_data.content = data.SerializeToString()
    value.tensor.dtype = 1
    path = write(tmp_path / "run", [header(), _summary_event(summary_pb2.Summary(value=[value]))])
    with tbkit.SummaryWriter(str(tmp_path / "other")) as w:
        w.add_scalar("loss", 1.0, 0)
    ld = tbkit.read(str(tmp_path))
    with pytest.warns(RuntimeWarning, match="bad"):
        problems = ld.problems()
    assert problems["path"].tolist() == [str(path)] and "'bad'" in problems["reason"][0]
    df = ld.hparams()
    assert df["ok"].tolist() == [3.0] and "bad" not in df.columns
    assert ld.scalars()["run"].tolist() == ["other"]


# -- PR curves, custom scalars, meshes --------------------------------------------------------------


def test_pr_curve_round_trip(tmp_path):
    labels = RNG.integers(0, 2, 40)
    predictions = RNG.uniform(size=40)
    with tbkit.SummaryWriter(str(tmp_path)) as w:
        w.add_pr_curve("pr", labels, predictions, 3, num_thresholds=9)
    df = tbkit.read(str(tmp_path)).pr_curves()
    assert list(df.columns) == ["run", "tag", "step", "wall_time", "thresholds", "tp", "fp", "tn", "fn",
                                "precision", "recall"]  # fmt: skip
    row = df.iloc[0]
    assert (row["run"], row["tag"], row["step"]) == (".", "pr", 3)
    expected = compute_curve(labels, predictions, 9)
    for i, name in enumerate(["tp", "fp", "tn", "fn", "precision", "recall"]):
        np.testing.assert_array_equal(row[name], expected[i].astype(np.float64))
    np.testing.assert_allclose(row["thresholds"], np.arange(9) / 8)
    assert ld_tensors_exclude(tmp_path, "pr_curves")


def ld_tensors_exclude(path, plugin: str) -> bool:
    """tensors() without a plugin leaves out kinds with a method of their own; by name it has them."""
    ld = tbkit.read(str(path))
    return plugin not in set(ld.tensors()["plugin"]) and len(ld.tensors(plugin=plugin)) > 0


def test_custom_scalars_round_trip(tmp_path):
    layout = {"losses": {"all": ["Multiline", ["loss/.*"]], "band": ["Margin", ["m", "lo", "hi"]]}}
    with tbkit.SummaryWriter(str(tmp_path)) as w:
        w.add_custom_scalars(layout)
    df = tbkit.read(str(tmp_path)).custom_scalars()
    assert df["tag"].tolist() == ["custom_scalars__config__"]
    assert df["layout"][0] == layout
    assert df["proto"][0].category[0].chart[1].margin.series[0].upper == "hi"
    assert ld_tensors_exclude(tmp_path, "custom_scalars")


def test_mesh_round_trip(tmp_path):
    vertices = RNG.uniform(size=(1, 6, 3)).astype(np.float32)
    colors = RNG.integers(0, 256, size=(1, 6, 3), dtype=np.uint8)
    faces = np.array([[[0, 1, 2], [3, 4, 5]]], dtype=np.int32)
    with tbkit.SummaryWriter(str(tmp_path)) as w:
        w.add_mesh(
            "shape", vertices, colors=colors, faces=faces, config_dict={"camera": {"fov": 60}}, global_step=4
        )
        w.add_mesh("cloud", vertices * 2, global_step=5)
    ld = tbkit.read(str(tmp_path))
    df = ld.meshes()
    assert df["tag"].tolist() == ["cloud", "shape"]
    from tbkit.plugins import registry
    from tbkit.plugins.mesh.frames import meshes_frame

    assert registry.frame_builder("meshes")[1] is meshes_frame  # the mesh kind's builder
    assert ld.frame("meshes")["step"].tolist() == df["step"].tolist()
    cloud, shape = df.iloc[0], df.iloc[1]
    np.testing.assert_array_equal(cloud["vertices"], vertices * 2)
    assert cloud["faces"] is None and cloud["colors"] is None and cloud["step"] == 5
    np.testing.assert_array_equal(shape["vertices"], vertices)
    np.testing.assert_array_equal(shape["faces"], faces)
    np.testing.assert_array_equal(shape["colors"], colors)
    assert shape["config"] == {"camera": {"fov": 60}} and shape["step"] == 4


# -- graphs ----------------------------------------------------------------------------------------


def _graph() -> graph_pb2.GraphDef:
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=n) for n in (-1, 3)]
    shape = tensor_shape_pb2.TensorShapeProto(dim=dims)
    add = graph_pb2.NodeDef(name="net/fc/add", op="Add", input=["input/x", "net/fc/w"])
    add.attr["_output_shapes"].list.shape.add().CopyFrom(shape)
    return graph_pb2.GraphDef(
        node=[
            graph_pb2.NodeDef(name="input/x", op="IO Node"),
            graph_pb2.NodeDef(name="net/fc/w", op="Const"),
            add,
        ]
    )


def test_graph_and_keras_model_round_trip(tmp_path):
    config = {"class_name": "Sequential", "config": {"name": "seq", "layers": [
        {"class_name": "InputLayer", "config": {"name": "in", "batch_shape": [None, 4]}},
        {"class_name": "Dense", "config": {"name": "d"}}]}}  # fmt: skip
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_graph(_graph())
    write(tmp_path / "keras", [header(), _summary_event(keras_model_pb("keras", json.dumps(config)))])
    ld = tbkit.read(str(tmp_path))
    graphs = ld.graphs().set_index("run")
    assert graphs.loc["run", "kind"] == "op_graph" and graphs.loc["run", "tag"] == "__run_graph__"
    assert graphs.loc["run", "graph"] == _graph() and graphs.loc["run", "nodes"] == 3
    assert graphs.loc["keras", "kind"] == "keras" and graphs.loc["keras", "graph"] == config
    nodes = ld.graph_nodes()
    add = nodes[nodes.name == "net/fc/add"].iloc[0]
    assert (add["op"], add["inputs"], add["shape"], add["scope"]) == ("Add", ["input/x", "net/fc/w"],
                                                                     [[-1, 3]], "net/fc")  # fmt: skip
    keras_nodes = nodes[nodes.kind == "keras"]
    assert keras_nodes["name"].tolist() == ["seq/in", "seq/d"] and keras_nodes["inputs"].tolist()[1] == [
        "seq/in"
    ]
    assert keras_nodes["shape"].tolist()[0] == [[-1, 4]]
    provider = ld.provider
    (datum,) = provider.read_blob_sequences("graph_keras_model")["keras"]["keras"]
    assert json.loads(provider.read_blob(datum.values[0].blob_key)) == config
    (datum,) = provider.read_blob_sequences("graphs")["run"]["__run_graph__"]
    assert graph_pb2.GraphDef.FromString(provider.read_blob(datum.values[0].blob_key)) == _graph()


def test_graph_that_does_not_parse_is_a_problem_naming_the_file(tmp_path):
    bad = write(
        tmp_path / "bad", [header(), event_pb2.Event(step=0, wall_time=1.0, graph_def=b"\xff\xff\xff")]
    )
    with tbkit.SummaryWriter(str(tmp_path / "good")) as w:
        w.add_graph(_graph())
        w.add_scalar("x", 1.0, 0)
    ld = tbkit.read(str(tmp_path))
    with pytest.warns(RuntimeWarning, match="GraphDef"):
        graphs = ld.graphs()
    assert graphs["run"].tolist() == ["good"]
    problems = ld.problems()
    assert problems["path"].tolist() == [str(bad)] and "GraphDef" in problems["reason"][0]
    assert ld.scalars()["value"].tolist() == [1.0]


# -- embeddings -------------------------------------------------------------------------------------


def test_embedding_round_trip(tmp_path):
    mat = RNG.normal(size=(5, 3)).astype(np.float32)
    labels = [["a", 1], ["b", 2], ["c", 3], ["d", 4], ["e", 5]]
    images = RNG.uniform(size=(5, 3, 4, 4)).astype(np.float32)
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_embedding(mat, metadata=labels, label_img=images, global_step=7, tag="words",
                        metadata_header=["name", "id"])  # fmt: skip
        w.add_embedding(mat[:2].astype(np.float64) / 3, metadata=["x", "y"], global_step=8, tag="plain")
    ld = tbkit.read(str(tmp_path))
    df = ld.embeddings().set_index("tag")
    words = df.loc["words:00007"]
    assert words["run"] == "run" and words["step"] == 7 and words["shape"] == (5, 3)
    np.testing.assert_array_equal(words["tensor"].astype(np.float32), mat)  # exact round trip
    assert list(words["metadata"].columns) == ["name", "id"]
    assert words["metadata"]["name"].tolist() == ["a", "b", "c", "d", "e"]
    assert words["metadata"]["id"].tolist() == ["1", "2", "3", "4", "5"]
    sprite = np.asarray(Image.open(io.BytesIO(words["sprite"])))
    assert sprite.shape == (12, 12, 3) and words["sprite_image_dim"] == (4, 4)
    plain = df.loc["plain:00008"]
    np.testing.assert_array_equal(plain["tensor"], mat[:2].astype(np.float64) / 3)
    assert plain["metadata"]["label"].tolist() == ["x", "y"] and plain["sprite"] is None
    files = ld.provider.list_plugin_files("projector")["run"]
    paths = {f.path for f in files}
    assert "projector_config.pbtxt" in paths and "00007/words/sprite.png" in paths
    assert (
        ld.provider.read_plugin_file("projector", run="run", path="00007/words/sprite.png") == words["sprite"]
    )
    with pytest.raises(NotFoundError):
        ld.provider.read_plugin_file("projector", run="run", path="../run/projector_config.pbtxt")


def test_bad_projector_files_are_problems_and_the_rest_reads(tmp_path):
    mat = RNG.normal(size=(4, 2))
    with tbkit.SummaryWriter(str(tmp_path / "broken")) as w:
        w.add_embedding(mat, label_img=RNG.uniform(size=(4, 1, 2, 2)), tag="a")
    (tmp_path / "broken" / "00000" / "a" / "sprite.png").unlink()
    with tbkit.SummaryWriter(str(tmp_path / "garbled")) as w:
        w.add_embedding(mat, tag="b")
    (tmp_path / "garbled" / "projector_config.pbtxt").write_text("embeddings { not valid")
    with tbkit.SummaryWriter(str(tmp_path / "fine")) as w:
        w.add_embedding(mat, tag="c")
    ld = tbkit.read(str(tmp_path))
    df = ld.embeddings()
    assert sorted(df["run"]) == ["broken", "fine"]
    assert df.set_index("run").loc["broken", "sprite"] is None
    problems = ld.problems()
    assert set(problems["run"]) == {"broken", "garbled"}
    paths = problems.set_index("run")["path"]
    assert paths["broken"].endswith("sprite.png") and paths["garbled"].endswith("projector_config.pbtxt")


# -- traces -----------------------------------------------------------------------------------------


def test_trace_statistics_and_a_trace_that_is_not_json(tmp_path):
    events = [
        {"ph": "X", "name": "step", "cat": "user", "ts": 100, "dur": 50, "pid": 1, "tid": 1},
        {"ph": "X", "name": "matmul", "cat": "cpu_op", "ts": 110, "dur": 20, "pid": 1, "tid": 1},
        {"ph": "X", "name": "add", "cat": "cpu_op", "ts": 112, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "matmul", "cat": "cpu_op", "ts": 140, "dur": 10, "pid": 1, "tid": 1},
        {"ph": "X", "name": "matmul", "cat": "cpu_op", "ts": 100, "dur": 30, "pid": 1, "tid": 2},
        {"ph": "i", "name": "marker", "ts": 200, "pid": 1, "tid": 1},
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}},
    ]
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_trace({"traceEvents": events}, session="s1", worker="w0")
    bad = tmp_path / "run" / "plugins" / "profile" / "s1" / "w1.pt.trace.json.gz"
    bad.write_bytes(gzip.compress(b"this is not json"))
    ld = tbkit.read(str(tmp_path))
    df = ld.traces()
    assert df[["run", "session", "worker"]].values.tolist() == [["run", "s1", "w0"]]
    row = df.iloc[0]
    assert row["events"] == 7 and row["start_us"] == 100 and row["span_us"] == 100  # marker at 200
    ops = row["top_ops"].set_index("name")
    assert ops.loc["matmul", "count"] == 3 and ops.loc["matmul", "total_us"] == 60
    assert ops.loc["matmul", "self_us"] == 15 + 10 + 30  # the nested add is not matmul's own time
    assert ops.loc["step", "self_us"] == 50 - 20 - 10 and ops.loc["add", "self_us"] == 5
    assert row["top_ops"]["name"].tolist()[0] == "matmul"  # sorted by self time
    assert len(ld.traces(top=1)["top_ops"][0]) == 1
    from tbkit.plugins import registry
    from tbkit.plugins.profile.frames import traces_frame

    assert registry.frame_builder("traces")[1] is traces_frame  # the profile kind's builder
    pd.testing.assert_frame_equal(
        ld.frame("traces", top=1).drop(columns="top_ops"), df.drop(columns="top_ops")
    )
    problems = ld.problems()
    assert problems["path"].tolist() == [str(bad)] and "not trace-event JSON" in problems["reason"][0]
    files = ld.provider.list_plugin_files("profile")
    assert [f.path for f in files["run"]] == ["plugins/profile/s1/w0.pt.trace.json.gz",
                                              "plugins/profile/s1/w1.pt.trace.json.gz"]  # fmt: skip
    assert "profile" in ld.provider.list_plugins()  # a plugin with files but no series has data
    (tmp_path / "nothing").mkdir()  # an existing logdir without data (a missing one raises)
    assert "profile" not in tbkit.read(str(tmp_path / "nothing")).provider.list_plugins()


def test_empty_logdir_frames_have_their_columns(tmp_path):
    ld = tbkit.read(str(tmp_path))
    for name in ("pr_curves", "custom_scalars", "meshes", "graphs", "graph_nodes", "hparams", "embeddings",
                 "traces"):  # fmt: skip
        frame = getattr(ld, name)()
        assert isinstance(frame, pd.DataFrame) and len(frame) == 0 and "run" in frame.columns, name


def test_hparams_queries_work_over_the_servers_multi_logdir_provider(hparams_logdir):
    from tbkit.reader.multi import MultiLogdirProvider

    path, _ = hparams_logdir
    multi = MultiLogdirProvider([("", str(path))])
    multi.reload()
    single = tbkit.read(str(path)).provider
    assert multi.list_hyperparameters() == single.list_hyperparameters()
    assert sorted(g.sessions[0].run for g in multi.read_hyperparameters()) == ["s0", "s1", "s2"]
    assert multi.read_hyperparameters() == single.read_hyperparameters()


def test_plugin_files_are_served_through_the_multi_logdir_provider(tmp_path):
    from tbkit.reader.multi import MultiLogdirProvider

    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_embedding(RNG.normal(size=(3, 2)), metadata=["a", "b", "c"], tag="e")
    multi = MultiLogdirProvider([("exp", str(tmp_path))])
    multi.reload()
    single = tbkit.read(str(tmp_path)).provider
    files = multi.list_plugin_files("projector")
    assert list(files) == ["exp/run"]
    assert {f.path for f in files["exp/run"]} == {
        f.path for f in single.list_plugin_files("projector")["run"]
    }
    assert all(f.run == "exp/run" for f in files["exp/run"])
    config = multi.read_plugin_file("projector", run="exp/run", path="projector_config.pbtxt")
    assert config == single.read_plugin_file("projector", run="run", path="projector_config.pbtxt")
    with pytest.raises(NotFoundError):
        multi.read_plugin_file("projector", run="exp/run", path="../../etc/passwd")
    with pytest.raises(NotFoundError):
        multi.read_plugin_file("projector", run="nope", path="projector_config.pbtxt")
    assert "projector" in multi.list_plugins()
