"""PyTorch modules as op graphs: scopes, ops, edges and shapes, whatever forward returns."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from tbkit import SummaryWriter  # noqa: E402
from tbkit.errors import InvalidArgumentError  # noqa: E402
from tbkit.plugins.graphs.torch_graph import GETATTR_OP, IO_OP, module_scopes, torch_graph_def  # noqa: E402
from tbkit.plugins.graphs.torch_trace import flatten_outputs  # noqa: E402

from ._graphs import by_name, check_well_formed, shapes, written_graphs  # noqa: E402


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(8, 3), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(self.act(self.fc1(x)))


class DictNet(Net):
    def forward(self, x: torch.Tensor, unused: torch.Tensor) -> dict:
        h = super().forward(x)
        return {"logits": h, "aux": [h * 2, None, 3], "mask": x > 0}


class TupleNet(Net):
    def forward(self, x: torch.Tensor) -> tuple:
        h = super().forward(x)
        return h, [h.sum(), h.max(dim=1)]


class Head(nn.Module):
    """A torchvision-style detection head: class logits and box regression per anchor."""

    def __init__(self, channels: int, anchors: int, classes: int) -> None:
        super().__init__()
        self.cls_logits = nn.Conv2d(channels, anchors * classes, 3, padding=1)
        self.bbox_pred = nn.Conv2d(channels, anchors * 4, 3, padding=1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.cls_logits(features), self.bbox_pred(features)


class TinyDetector(nn.Module):
    def __init__(self, classes: int = 3, anchors: int = 2) -> None:
        super().__init__()
        self.classes = classes
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
        )
        self.head = Head(16, anchors, classes)

    def forward(self, images: torch.Tensor) -> dict:
        features = self.backbone(images)
        logits, deltas = self.head(features)
        n = images.shape[0]
        logits = logits.permute(0, 2, 3, 1).reshape(n, -1, self.classes)
        boxes = deltas.permute(0, 2, 3, 1).reshape(n, -1, 4)
        scores, labels = logits.softmax(-1).max(-1)
        return {"boxes": boxes, "scores": scores, "labels": labels, "features": {"p3": features}}


def _op_nodes(graph, op: str) -> list:
    return [node for node in graph.node if node.op == op]


def test_scopes_ops_edges_and_shapes_follow_the_module_tree() -> None:
    model, x = Net(), torch.randn(5, 4)
    graph = torch_graph_def(model, x)
    check_well_formed(graph)
    nodes = by_name(graph)
    scopes = module_scopes(model)
    assert scopes["block.0"] == "Net/Sequential[block]/Linear[0]"
    fc1, relu = f"{scopes['fc1']}/linear", f"{scopes['act']}/relu"
    linear0, tanh = f"{scopes['block.0']}/linear", f"{scopes['block.1']}/tanh"
    assert nodes[fc1].op == "aten::linear" and nodes[tanh].op == "aten::tanh"
    assert list(nodes[fc1].input) == ["input/x", f"{scopes['fc1']}/weight", f"{scopes['fc1']}/bias"]
    assert list(nodes[relu].input) == [fc1]
    assert nodes[linear0].input[0] == relu
    assert list(nodes["output/output.1"].input) == [tanh]
    assert nodes["input/x"].op == nodes["output/output.1"].op == IO_OP
    # Shapes are the ones the model really produces.
    assert shapes(nodes["input/x"]) == [tuple(x.shape)]
    assert shapes(nodes[fc1]) == [tuple(model.fc1(x).shape)]
    assert shapes(nodes[tanh]) == shapes(nodes["output/output.1"]) == [tuple(model(x).shape)]
    for path, parameter in model.named_parameters():
        owner, _, attribute = path.rpartition(".")
        node = nodes[f"{scopes[owner]}/{attribute}"]
        assert node.op == GETATTR_OP and shapes(node) == [tuple(parameter.shape)]
    assert graph.versions.producer > 0


def test_dict_outputs_become_one_output_node_per_tensor() -> None:
    model, x = DictNet(), torch.randn(2, 4)
    graph = torch_graph_def(model, (x, torch.zeros(1)))
    check_well_formed(graph)
    nodes = by_name(graph)
    expected = model(x, torch.zeros(1))
    outputs = {name: node for name, node in nodes.items() if name.startswith("output/")}
    assert set(outputs) == {"output/logits", "output/aux.0", "output/mask"}
    assert shapes(outputs["output/logits"]) == [tuple(expected["logits"].shape)]
    assert shapes(outputs["output/mask"]) == [tuple(expected["mask"].shape)]
    assert nodes[outputs["output/aux.0"].input[0]].op == "aten::mul"
    assert "input/unused" not in nodes  # unused inputs are left out, as torch does
    assert "input/x" in nodes


def test_tuple_and_list_outputs_and_multi_output_ops() -> None:
    model, x = TupleNet(), torch.randn(2, 4)
    graph = torch_graph_def(model, [x])
    check_well_formed(graph)
    nodes = by_name(graph)
    h, (total, (values, indices)) = model(x)
    outputs = [node for node in graph.node if node.name.startswith("output/")]
    assert [node.name for node in outputs] == [f"output/output.{i}" for i in range(1, 5)]
    assert [shapes(node)[0] for node in outputs] == [tuple(t.shape) for t in (h, total, values, indices)]
    (max_node,) = _op_nodes(graph, "aten::max")
    assert [outputs[2].input[0], outputs[3].input[0]] == [max_node.name, f"{max_node.name}:1"]
    assert shapes(max_node) == [tuple(values.shape), tuple(indices.shape)]
    assert nodes[max_node.name].input[0].endswith("/tanh")


def test_detection_head_returning_a_dict() -> None:
    model, images = TinyDetector(), torch.randn(2, 3, 16, 16)
    graph = torch_graph_def(model, images)
    check_well_formed(graph)
    nodes = by_name(graph)
    expected = model.eval()(images)
    names = {"boxes": "output/boxes", "scores": "output/scores", "labels": "output/labels"}
    for key, name in names.items():
        assert shapes(nodes[name]) == [tuple(expected[key].shape)]
    assert shapes(nodes["output/features.p3"]) == [tuple(expected["features"]["p3"].shape)]
    assert nodes["output/labels"].input[0] == nodes["output/scores"].input[0] + ":1"
    scopes = module_scopes(model)
    assert scopes["head.cls_logits"] == "TinyDetector/Head[head]/Conv2d[cls_logits]"
    convs = [n.name.rsplit("/", 1)[0] for n in _op_nodes(graph, "aten::_convolution")]
    assert convs == [scopes[p] for p in ("backbone.0", "backbone.3", "head.cls_logits", "head.bbox_pred")]
    bn = module_scopes(model)["backbone.1"]
    assert shapes(nodes[f"{bn}/running_mean"]) == [tuple(model.backbone[1].running_mean.shape)]


def test_training_flag_is_restored_and_eval_mode_is_traced() -> None:
    model = TinyDetector().train()
    graph = torch_graph_def(model, torch.randn(1, 3, 8, 8))
    assert model.training and model.backbone[1].training
    (bn,) = _op_nodes(graph, "aten::batch_norm")
    training_flag = by_name(graph)[bn.input[5]]
    assert training_flag.op == "prim::Constant" and b"value: 0" in training_flag.attr["attr"].s


def test_repeated_module_calls_get_unique_names_and_one_parameter_node() -> None:
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(self.fc(x))

    graph = torch_graph_def(Twice(), torch.randn(1, 3))
    check_well_formed(graph)
    linears = [node.name for node in _op_nodes(graph, "aten::linear")]
    assert linears == ["Twice/Linear[fc]/linear", "Twice/Linear[fc]/linear_1"]
    weights = [node.name for node in _op_nodes(graph, GETATTR_OP) if node.name.endswith("/weight")]
    assert weights == ["Twice/Linear[fc]/weight"]
    assert by_name(graph)[linears[1]].input[0] == linears[0]


def test_flatten_outputs_names() -> None:
    t = torch.zeros(1)
    point = collections.namedtuple("point", ["x", "y"])
    assert [n for n, _ in flatten_outputs(t)] == ["output.1"]
    assert [n for n, _ in flatten_outputs([t, (t, None), 1])] == ["output.1", "output.2"]
    assert [n for n, _ in flatten_outputs({"a/b": {"c": [t, t]}})] == ["a_b.c.0", "a_b.c.1"]
    assert [n for n, _ in flatten_outputs(point(t, [t]))] == ["x", "y.0"]
    with pytest.raises(InvalidArgumentError, match="no tensor"):
        flatten_outputs({"a": None, "b": 3})


def test_bad_models_are_refused() -> None:
    class NoTensors(nn.Module):
        def forward(self, x: torch.Tensor) -> dict:
            return {"n": 1}

    with pytest.raises(InvalidArgumentError, match="no tensor"):
        torch_graph_def(NoTensors(), torch.zeros(1))
    with pytest.raises(InvalidArgumentError, match=r"torch\.nn\.Module"):
        torch_graph_def(lambda x: x, torch.zeros(1))  # type: ignore[arg-type]


def test_verbose_prints_the_traced_graph(capsys: pytest.CaptureFixture[str]) -> None:
    torch_graph_def(Net(), torch.randn(1, 4), verbose=True)
    assert "aten::linear" in capsys.readouterr().out


def test_summary_writer_add_graph_writes_one_graph_event(tmp_path: Path) -> None:
    model, x = DictNet(), torch.randn(2, 4)
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(model, (x, x), use_strict_trace=False)
    (graph,) = written_graphs(tmp_path)
    assert graph == torch_graph_def(model, (x, x))
    with (
        SummaryWriter(tmp_path / "keras") as writer,
        pytest.raises(InvalidArgumentError, match="add_keras_model"),
    ):

        class LooksKeras:
            def to_json(self) -> str:
                return "{}"

        writer.add_graph(LooksKeras())
