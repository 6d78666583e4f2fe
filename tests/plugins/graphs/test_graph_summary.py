"""Ready graphs as ``Event.graph_def`` bytes, Keras model summaries, ONNX graphs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tbkit import SummaryWriter
from tbkit._tensors import make_ndarray
from tbkit.errors import InvalidArgumentError, MissingDependencyError, StorageError
from tbkit.plugins.graphs import metadata
from tbkit.plugins.graphs.summary import graph_def_bytes, is_graph_def, keras_model_json, keras_model_pb
from tbkit.proto import graph_pb2, summary_pb2

from ._graphs import by_name, check_well_formed, events, shapes, written_graphs


def _graph() -> graph_pb2.GraphDef:
    graph = graph_pb2.GraphDef(versions=graph_pb2.VersionDef(producer=7))
    graph.node.add(name="scope/a", op="Const")
    graph.node.add(name="scope/b", op="Neg", input=["scope/a"])
    return graph


def test_graph_def_bytes_accepts_messages_bytes_and_graph_objects() -> None:
    from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2

    ours = _graph()
    data = ours.SerializeToString()
    theirs = tb_graph_pb2.GraphDef.FromString(data)

    class HasGraph:
        def as_graph_def(self) -> graph_pb2.GraphDef:
            return ours

    for value in (ours, theirs, data, bytearray(data), memoryview(data), HasGraph()):
        assert is_graph_def(value)
        assert graph_pb2.GraphDef.FromString(graph_def_bytes(value)) == ours


def test_graph_def_bytes_refuses_other_values() -> None:
    assert not is_graph_def(summary_pb2.Summary())
    for value in (summary_pb2.Summary(), object(), "text", 3):
        with pytest.raises(InvalidArgumentError, match="GraphDef"):
            graph_def_bytes(value)
    with pytest.raises(InvalidArgumentError, match="not a serialized GraphDef"):
        graph_def_bytes(b"\x0a\xff\xff\xff")


def test_add_graph_of_a_ready_graph_writes_graph_def_bytes(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(_graph())
        writer.add_graph(_graph().SerializeToString())
    graph_events = [e for e in events(tmp_path) if e.HasField("graph_def")]
    assert len(graph_events) == 2
    assert all(graph_pb2.GraphDef.FromString(e.graph_def) == _graph() for e in graph_events)
    assert all(e.step == 0 and e.wall_time > 0 for e in graph_events)


def test_keras_model_summary_layout() -> None:
    config = json.dumps({"class_name": "Sequential", "config": {"name": "s", "layers": []}})
    summary = keras_model_pb(metadata.KERAS_TAG, config)
    (value,) = summary.value
    assert value.tag == "keras"
    assert value.metadata.plugin_data.plugin_name == "graph_keras_model"
    assert value.metadata.plugin_data.content == b"1"
    assert value.metadata.data_class == summary_pb2.DATA_CLASS_UNKNOWN  # as TensorFlow writes it
    array = make_ndarray(value.tensor)
    assert array.shape == () and array.item() == config.encode()
    assert not keras_model_pb("k", config, with_metadata=False).value[0].HasField("metadata")


def test_keras_model_json_errors() -> None:
    class Broken:
        def to_json(self) -> str:
            raise NotImplementedError("subclassed model without get_config")

    class NotText:
        def to_json(self) -> bytes:
            return b"{}"

    with pytest.raises(InvalidArgumentError, match="to_json"):
        keras_model_json(object())
    with pytest.raises(InvalidArgumentError, match="get_config"):
        keras_model_json(Broken())
    with pytest.raises(InvalidArgumentError, match="not str"):
        keras_model_json(NotText())


def test_add_keras_model_with_keras_3(tmp_path: Path) -> None:
    keras = pytest.importorskip("keras")
    assert keras.backend.backend() == "torch"  # tests/conftest.py sets KERAS_BACKEND before any import
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2, name="logits")(hidden))
    with SummaryWriter(tmp_path) as writer:
        writer.add_keras_model(model)
        writer.add_keras_model(model, step=5, walltime=1_700_000_000.0)
    summaries = [e for e in events(tmp_path) if e.HasField("summary")]
    assert [e.step for e in summaries] == [0, 5] and summaries[1].wall_time == 1_700_000_000.0
    first, second = (e.summary.value[0] for e in summaries)
    assert first.tag == second.tag == "keras"
    assert first.metadata.plugin_data.plugin_name == "graph_keras_model"
    assert not second.HasField("metadata")  # metadata only with a tag's first value
    written = json.loads(make_ndarray(first.tensor).item())
    assert written == json.loads(model.to_json())
    assert [layer["config"]["name"] for layer in written["config"]["layers"]] == [
        "features",
        "hidden",
        "logits",
    ]


# -- ONNX ----------------------------------------------------------------------------


def test_add_onnx_graph_without_onnx_names_the_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # what an absent package looks like to import
    with (
        SummaryWriter(tmp_path) as writer,
        pytest.raises(MissingDependencyError, match=r"pip install \"tbkit\[onnx\]\""),
    ):
        writer.add_onnx_graph(str(tmp_path / "model.onnx"))


def _onnx_model():  # type: ignore[no-untyped-def]
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    weight = helper.make_tensor("fc.weight", onnx.TensorProto.FLOAT, [3, 4], np.ones(12, np.float32))
    nodes = [
        helper.make_node("Gemm", ["x", "fc.weight"], ["h"], name="/fc/Gemm", transB=1, alpha=0.5),
        helper.make_node("TopK", ["h", "k"], ["values", "indices"], name="/TopK", axis=1),
        helper.make_node("Relu", ["values"], ["y"]),
    ]
    k = helper.make_tensor("k", onnx.TensorProto.INT64, [1], [2])
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 4])],
        [
            helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None),
            helper.make_tensor_value_info("indices", onnx.TensorProto.INT64, None),
        ],
        initializer=[weight, k],
    )
    return helper.make_model(graph)


def test_onnx_graph_nodes_edges_attrs_and_shapes(tmp_path: Path) -> None:
    model = _onnx_model()
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    with SummaryWriter(tmp_path / "run") as writer:
        writer.add_onnx_graph(str(path))
        writer.add_onnx_graph(model)
    first, second = written_graphs(tmp_path / "run")
    assert first == second
    check_well_formed(first)
    nodes = by_name(first)
    assert nodes["fc/weight"].op == "Const" and shapes(nodes["fc/weight"]) == [(3, 4)]
    assert nodes["input/x"].op == "IO Node" and shapes(nodes["input/x"]) == [(-1, 4)]
    gemm = nodes["fc/Gemm"]
    assert gemm.op == "Gemm" and list(gemm.input) == ["input/x", "fc/weight"]
    assert gemm.attr["transB"].i == 1 and gemm.attr["alpha"].f == 0.5
    assert shapes(gemm) == [(-1, 3)]  # from ONNX shape inference
    assert list(nodes["TopK"].input) == ["fc/Gemm", "k"] and len(shapes(nodes["TopK"])) == 2
    assert list(nodes["output/indices"].input) == ["TopK:1"]
    relu = next(node for node in first.node if node.op == "Relu")
    assert list(relu.input) == ["TopK"] and list(nodes["output/y"].input) == [relu.name]


def test_onnx_graph_bad_inputs(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(StorageError) as info:
            writer.add_onnx_graph(str(tmp_path / "missing.onnx"))
        assert info.value.path.endswith("missing.onnx")
        with pytest.raises(InvalidArgumentError, match="not an ONNX model"):
            writer.add_onnx_graph(b"\xff\xff\xff\xff")
        with pytest.raises(InvalidArgumentError, match="ONNX"):
            writer.add_onnx_graph(42)
