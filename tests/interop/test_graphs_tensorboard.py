"""Graphs written by tbkit, served by TensorBoard's own graphs plugin, compared with torch's and Keras's.

Naming differences from ``torch.utils.tensorboard`` (documented in
``tbkit/plugins/graphs/torch_graph.py``): an op node is ``<scope>/<op>`` where torch writes
``<scope>/<TorchScript value name>``; a parameter is one node ``<module scope>/<attribute>``
(with its shape) where torch writes one ``<module scope>/<attribute>/<value name>`` per use;
a multi-output op is one node read as ``name:k``. Scopes, op types, input/output nodes,
edges and shapes are the same.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _peers import accumulate  # sets TensorBoard's no-TensorFlow switch first
from google.protobuf import text_format
from tensorboard import context
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2
from tensorboard.plugins import base_plugin
from tensorboard.plugins.graph import graphs_plugin
from tensorboard.util import tensor_util

from tbkit import SummaryWriter
from tbkit.plugins.graphs.torch_graph import module_scopes

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.interop


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.fc1 = nn.Linear(16, 8)  # conv of (1, 4, 6) → (2, 2, 4) → 16
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(8, 3), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.flatten(self.conv(x), 1)
        return self.block(self.act(self.fc1(h))) * 2


class DictNet(Net):
    def forward(self, x: torch.Tensor) -> dict:
        h = super().forward(x)
        return {"scores": h, "top": h.max(dim=1).indices, "total": h.sum()}


class TupleNet(Net):
    def forward(self, x: torch.Tensor) -> tuple:
        h = super().forward(x)
        return h, h.sum()


class _Plugin:
    """TensorBoard's GraphsPlugin over a logdir, built as TensorBoard builds it."""

    def __init__(self, logdir: Path) -> None:
        multiplexer = plugin_event_multiplexer.EventMultiplexer()
        multiplexer.AddRunsFromDirectory(str(logdir))
        multiplexer.Reload()
        provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
        tb_context = base_plugin.TBContext(
            data_provider=provider, logdir=str(logdir), multiplexer=multiplexer
        )
        self.plugin = graphs_plugin.GraphsPlugin(tb_context)
        self.ctx = context.RequestContext()

    def info(self) -> dict:
        return self.plugin.info_impl(self.ctx, "")

    def graph(self, run: str, tag: str | None = None, conceptual: bool = False) -> tb_graph_pb2.GraphDef:
        body, mime = self.plugin.graph_impl(self.ctx, run, tag, conceptual, "")
        assert mime == "text/x-protobuf"
        return text_format.Parse(body, tb_graph_pb2.GraphDef())


def _shapes(node) -> tuple | None:  # type: ignore[no-untyped-def]
    if "_output_shapes" not in node.attr:
        return None
    return tuple(tuple(d.size for d in s.dim) for s in node.attr["_output_shapes"].list.shape)


def _label(node, torch_layout: bool) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    """What a node is, independent of the naming differences listed in the module docstring."""
    if node.op == "IO Node":
        return ("io", node.name)
    parts = node.name.split("/")
    if node.op == "prim::GetAttr":
        parts = parts[:-1] if torch_layout else parts
        return ("param", "/".join(parts[:-1]), parts[-1])
    return ("op", "/".join(parts[:-1]), node.op)


def _structure(graph, torch_layout: bool) -> tuple:  # type: ignore[no-untyped-def]
    nodes = {node.name: node for node in graph.node}
    labels = {name: _label(node, torch_layout) for name, node in nodes.items()}
    computed = collections.Counter(label for label in labels.values() if label[0] != "param")
    params = {label for label in labels.values() if label[0] == "param"}
    edges = collections.Counter(
        (labels[ref.partition(":")[0]], labels[node.name])
        for node in graph.node
        for ref in node.input
        if ref.partition(":")[0] in nodes  # torch's GetAttr nodes read modules that are not nodes
    )
    shapes = {labels[n.name]: _shapes(n) for n in graph.node if labels[n.name][0] != "param"}
    return computed, params, edges, shapes


def _write_both(tmp_path: Path, model: nn.Module, x: torch.Tensor) -> _Plugin:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_graph(model, x)
    torch_writer = TorchWriter(str(tmp_path / "torch"))
    torch_writer.add_graph(model, x)
    torch_writer.close()
    return _Plugin(tmp_path)


def test_tensorboard_serves_the_same_graph_as_torch_writes(tmp_path: Path) -> None:
    model, x = Net(), torch.randn(2, 1, 4, 6)
    plugin = _write_both(tmp_path, model, x)
    info = plugin.info()
    assert info["tbkit"]["run_graph"] and info["torch"]["run_graph"]
    ours, theirs = plugin.graph("tbkit"), plugin.graph("torch")

    computed, params, edges, shapes = _structure(ours, torch_layout=False)
    t_computed, t_params, t_edges, t_shapes = _structure(theirs, torch_layout=True)
    assert computed == t_computed  # same ops in the same scopes, same input and output nodes
    assert params == t_params
    assert edges == t_edges
    for label, torch_shapes in t_shapes.items():
        if torch_shapes is not None:  # torch leaves out shapes of non-tensor values
            assert shapes[label] == torch_shapes, label
    torch_getattrs = sum(node.op == "prim::GetAttr" for node in theirs.node)
    assert len(ours.node) == len(theirs.node) - torch_getattrs + len(params)
    assert ("op", "Net/Sequential[block]/Linear[0]", "aten::linear") in computed
    assert {("io", "input/x"), ("io", "output/output.1")} <= set(computed)
    # Our parameter nodes carry the tensor's shape, which torch leaves out.
    ours_by_name = {node.name: node for node in ours.node}
    scopes = module_scopes(model)
    for path, parameter in model.named_parameters():
        owner, _, attribute = path.rpartition(".")
        assert _shapes(ours_by_name[f"{scopes[owner]}/{attribute}"]) == (tuple(parameter.shape),)


def test_dict_output_fails_in_torch_and_works_in_tbkit(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    model, x = DictNet(), torch.randn(2, 1, 4, 6)
    torch_writer = TorchWriter(str(tmp_path / "torch"))
    with pytest.raises(RuntimeError, match="dict"):
        torch_writer.add_graph(model, x)
    torch_writer.close()
    with SummaryWriter(tmp_path / "tbkit") as writer:
        writer.add_graph(model, x)
    graph = _Plugin(tmp_path).graph("tbkit")
    nodes = {node.name: node for node in graph.node}
    expected = model(x)
    assert _shapes(nodes["output/scores"]) == (tuple(expected["scores"].shape),)
    assert _shapes(nodes["output/top"]) == (tuple(expected["top"].shape),)
    assert nodes["output/top"].input[0].endswith("/max:1")
    assert _shapes(nodes["output/total"]) == ((),)


def test_tuple_output_matches_torch_apart_from_the_tuple_node(tmp_path: Path) -> None:
    model, x = TupleNet(), torch.randn(2, 1, 4, 6)
    plugin = _write_both(tmp_path, model, x)
    computed, _, _, _ = _structure(plugin.graph("tbkit"), torch_layout=False)
    t_computed, _, _, _ = _structure(plugin.graph("torch"), torch_layout=True)
    ops = {label for label in computed if label[0] == "op"}
    t_ops = {label for label in t_computed if label[0] == "op" and label[2] != "prim::TupleConstruct"}
    assert ops == t_ops
    # torch writes the tuple as one output; tbkit one output per tensor.
    assert {label for label in t_computed if label[1].startswith("output/")} == {("io", "output/output.1")}
    assert {label for label in computed if label[1].startswith("output/")} == {
        ("io", "output/output.1"),
        ("io", "output/output.2"),
    }


def _keras_model():  # type: ignore[no-untyped-def]
    keras = pytest.importorskip("keras")
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name="logits")(hidden), name="clf")


def test_tensorboard_draws_the_keras_conceptual_graph(tmp_path: Path) -> None:
    model = _keras_model()
    with SummaryWriter(tmp_path / "run") as writer:
        writer.add_keras_model(model)
    plugin = _Plugin(tmp_path)
    assert plugin.info()["run"]["tags"]["keras"]["conceptual_graph"]
    assert not plugin.info()["run"]["run_graph"]
    graph = plugin.graph("run", "keras", conceptual=True)
    nodes = {node.name: node for node in graph.node}
    names = [f"{model.name}/{layer.name}" for layer in model.layers]  # scoped by the model's name
    assert list(nodes) == names
    assert [nodes[name].attr["keras_class"].s.decode() for name in names] == [
        type(layer).__name__ for layer in model.layers
    ]
    assert list(nodes["clf/logits"].input) == ["clf/hidden"] and list(nodes["clf/hidden"].input) == [
        "clf/features"
    ]


_KERAS_CALLBACK = textwrap.dedent(
    """
    import sys
    import numpy as np
    import keras
    from tbkit import SummaryWriter

    out = sys.argv[1]
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2, name="logits")(hidden), name="clf")
    model.compile("sgd", "mse")
    callback = keras.callbacks.TensorBoard(out + "/keras", write_graph=True)
    model.fit(np.zeros((4, 4)), np.zeros((4, 2)), epochs=1, verbose=0, callbacks=[callback])
    with SummaryWriter(out + "/tbkit/train") as writer:
        writer.add_keras_model(model)
    """
)


@pytest.mark.slow
def test_keras_model_matches_the_keras_tensorboard_callback(tmp_path: Path) -> None:
    """Keras's callback (which imports TensorFlow to write) and tbkit, on the same model."""
    pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    env = {**os.environ, "KERAS_BACKEND": "torch", "TF_CPP_MIN_LOG_LEVEL": "3"}
    subprocess.run([sys.executable, "-c", _KERAS_CALLBACK, str(tmp_path)], check=True, env=env, timeout=600)
    written = {}
    for who in ("keras", "tbkit"):
        acc = accumulate(tmp_path / who / "train")
        assert "keras" in acc.Tags()["tensors"], who
        plugin_data = acc.SummaryMetadata("keras").plugin_data
        (event,) = acc.Tensors("keras")
        written[who] = (plugin_data.plugin_name, plugin_data.content, event.step, event.tensor_proto)
    (name, content, step, proto), theirs = written["tbkit"], written["keras"]
    assert (name, content, step) == theirs[:3] == ("graph_keras_model", b"1", 0)
    assert proto.dtype == theirs[3].dtype and proto.tensor_shape == theirs[3].tensor_shape
    ours_json, their_json = (tensor_util.make_ndarray(p).item() for p in (proto, theirs[3]))
    assert json.loads(ours_json) == json.loads(their_json)
    plugin = _Plugin(tmp_path)
    assert plugin.graph("tbkit/train", "keras", conceptual=True) == plugin.graph(
        "keras/train", "keras", conceptual=True
    )
