"""Graph routes: listing, layouts at expanded scopes, node details, search, errors, caching."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tbkit
from tbkit.demo import write_demo_logdir
from tbkit.plugins.graphs.decode import node_rows, parse
from tbkit.proto import graph_pb2
from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app
from tests.plugins.graphs._graphs import write_torch_graph

FIXTURES = Path(__file__).resolve().parents[2] / "interop" / "fixtures"
GRAPH = "__run_graph__"
DEMO_RUN = "lr_0.1"
LAYOUT = "/data/plugin/graphs/layout"


def client_of(logdir: Path | str) -> Any:
    return create_app(tbkit.read(str(logdir)).provider).test_client()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logdir = tmp_path_factory.mktemp("graphs_demo")
    write_demo_logdir(str(logdir), steps=3)
    return logdir


@pytest.fixture
def client(demo: Path) -> Any:
    return client_of(demo)


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph written by ``torch.utils.tensorboard``'s ``add_graph`` (run ``torch``, scope ``Net``)."""
    pytest.importorskip("torch")
    logdir = tmp_path_factory.mktemp("graphs_torch")
    write_torch_graph(logdir / "torch")
    return logdir


def layout(client: Any, **params: Any) -> dict:
    answer = client.get(LAYOUT, query_string={"run": DEMO_RUN, "tag": GRAPH, **params})
    assert answer.status_code == 200, answer.data
    return answer.json


def ids(answer: dict, kind: str | None = None) -> set[str]:
    return {n["id"] for n in answer["nodes"] if kind is None or n["kind"] == kind}


def test_list(client: Any) -> None:
    listing = client.get("/data/plugin/graphs/list").json
    assert set(listing) == {"lr_0.1", "lr_0.03", "lr_0.01"}
    entry = listing[DEMO_RUN][GRAPH]
    assert entry["plugin"] == "graphs" and entry["graph_kind"] == "op_graph" and entry["max_step"] == 0


def test_tab_is_listed_with_its_script(client: Any) -> None:
    tab = client.get("/data/plugins_listing").json["graphs"]
    assert tab["enabled"] and tab["tab_name"] == "Graphs" and tab["script"].endswith("graphs/graphs.js")


def test_layout_collapsed_by_default(client: Any) -> None:
    answer = layout(client)
    assert answer["total_ops"] == 13 and answer["total_scopes"] == 3 and answer["expanded"] == []
    assert ids(answer, "op") == {"input"} and ids(answer, "scope") == {"layer1", "layer2", "loss"}
    assert {(e["source"], e["target"]) for e in answer["edges"]} == {
        ("input", "layer1"),
        ("layer1", "layer2"),
        ("layer2", "loss"),
    }
    scope = next(n for n in answer["nodes"] if n["id"] == "layer1")
    assert scope["count"] == 5 and scope["ops"][0] == ["VariableV2", 2]
    assert answer["width"] > 0 and answer["height"] > 0
    assert answer["op_types"][:2] == [["VariableV2", 4], ["AddV2", 2]] and len(answer["op_types"]) == 7


def test_expanding_a_scope_shows_its_ops_in_a_cluster(client: Any) -> None:
    answer = layout(client, expanded="layer1")
    assert answer["expanded"] == ["layer1"]
    inner = {f"layer1/{n}" for n in ("weights", "bias", "matmul", "add", "relu")}
    assert ids(answer, "op") == {"input"} | inner and ids(answer, "scope") == {"layer2", "loss"}
    (cluster,) = answer["clusters"]
    assert cluster["id"] == "layer1" and cluster["count"] == 5
    assert all(n["parent"] == "layer1" for n in answer["nodes"] if n["id"] in inner)
    edges = {(e["source"], e["target"]) for e in answer["edges"]}
    assert ("input", "layer1/matmul") in edges and ("layer1/relu", "layer2") in edges


def test_expanded_as_json_list_post_and_all(client: Any) -> None:
    listed = layout(client, expanded=json.dumps(["layer2", "loss", "nope"]))
    assert listed["expanded"] == ["layer2", "loss"]
    posted = client.post(LAYOUT, json={"run": DEMO_RUN, "tag": GRAPH, "expanded": ["layer2", "loss"]}).json
    assert ids(posted) == ids(listed)
    everything = layout(client, all=1)
    assert len(ids(everything, "op")) == 13 and not ids(everything, "scope")
    assert layout(client, expanded="")["expanded"] == []


def test_layouts_are_cached_per_expanded_set(demo: Path) -> None:
    app = create_app(tbkit.read(str(demo)).provider)
    client = app.test_client()
    first = layout(client, expanded="layer1")
    again = layout(client, expanded="layer1")
    assert first == again
    layout(client, expanded="layer2")
    graphs, layouts = app.extensions["tbkit.graphs"]
    assert len(graphs) == 1 and len(layouts) == 2


def test_node_details(client: Any) -> None:
    query = {"run": DEMO_RUN, "tag": GRAPH, "name": "layer1/matmul"}
    op = client.get("/data/plugin/graphs/node", query_string=query).json
    assert op["kind"] == "op" and op["op"] == "MatMul" and op["scope"] == "layer1"
    assert [i["name"] for i in op["inputs"]] == ["input", "layer1/weights"]
    assert op["outputs"] == ["layer1/add"]
    scope = client.get(
        "/data/plugin/graphs/node", query_string={**query, "name": "loss", "kind": "scope"}
    ).json
    assert scope["kind"] == "scope" and scope["count"] == 2 and scope["children"] == 2


def test_search(client: Any) -> None:
    query = {"run": DEMO_RUN, "tag": GRAPH}
    found = client.get("/data/plugin/graphs/search", query_string={**query, "q": "RELU"}).json
    assert [m["name"] for m in found["matches"]] == ["layer1/relu", "layer2/relu"] and found["total"] == 2
    assert found["matches"][0]["scope"] == "layer1"
    by_op = client.get(
        "/data/plugin/graphs/search", query_string={**query, "q": "variablev2", "limit": 3}
    ).json
    assert by_op["total"] == 4 and len(by_op["matches"]) == 3
    assert client.get("/data/plugin/graphs/search", query_string={**query, "q": " "}).json["matches"] == []


@pytest.mark.parametrize(
    ("route", "query", "status"),
    [
        ("layout", {"tag": GRAPH}, 400),
        ("layout", {"run": "nope", "tag": GRAPH}, 404),
        ("layout", {"run": DEMO_RUN, "tag": "nope"}, 404),
        ("layout", {"run": DEMO_RUN, "tag": GRAPH, "plugin": "scalars"}, 400),
        ("layout", {"run": DEMO_RUN, "tag": GRAPH, "all": "2"}, 400),
        ("layout", {"run": DEMO_RUN, "tag": GRAPH, "expanded": "[1, 2]"}, 400),
        ("layout", {"run": DEMO_RUN, "tag": GRAPH, "expanded": "[oops"}, 400),
        ("node", {"run": DEMO_RUN, "tag": GRAPH}, 400),
        ("node", {"run": DEMO_RUN, "tag": GRAPH, "name": "nope"}, 404),
        ("node", {"run": DEMO_RUN, "tag": GRAPH, "name": "input", "kind": "scope"}, 404),
        ("node", {"run": DEMO_RUN, "tag": GRAPH, "name": "input", "kind": "x"}, 400),
        ("search", {"run": DEMO_RUN, "tag": GRAPH}, 400),
        ("search", {"run": DEMO_RUN, "tag": GRAPH, "q": "a", "limit": "0"}, 400),
    ],
)
def test_errors(client: Any, route: str, query: dict, status: int) -> None:
    answer = client.get(f"/data/plugin/graphs/{route}", query_string=query)
    assert answer.status_code == status and "error" in answer.json


def test_post_body_must_be_an_object(client: Any) -> None:
    assert client.post(LAYOUT, json=["layer1"]).status_code == 400


def test_tensorflow_graph(tmp_path: Path) -> None:
    client = client_of(FIXTURES / "tf_rich")
    assert client.get("/data/plugin/graphs/list").json["graph"][GRAPH]["plugin"] == "graphs"
    answer = client.get(LAYOUT, query_string={"run": "graph", "tag": GRAPH}).json
    assert ids(answer) == {"x", "w", "y", "out"} and len(answer["edges"]) == 3
    out = client.get(
        "/data/plugin/graphs/node", query_string={"run": "graph", "tag": GRAPH, "name": "out"}
    ).json
    assert out["shape"] == [[-1, 2]] and ["T", "float"] in out["attributes"]


def test_keras_conceptual_graph() -> None:
    client = client_of(FIXTURES / "keras")
    entry = client.get("/data/plugin/graphs/list").json["train"]["keras"]
    assert entry == {**entry, "plugin": "graph_keras_model", "graph_kind": "keras"}
    answer = client.get(LAYOUT, query_string={"run": "train", "tag": "keras"}).json
    assert answer["graph_kind"] == "keras" and answer["expanded"] == ["sequential"]  # a lone top scope opens
    assert ids(answer, "op") == {"sequential/input_layer", "sequential/dense", "sequential/dense_1"}
    assert {(e["source"], e["target"]) for e in answer["edges"]} == {
        ("sequential/input_layer", "sequential/dense"),
        ("sequential/dense", "sequential/dense_1"),
    }
    dense = client.get(
        "/data/plugin/graphs/node", query_string={"run": "train", "tag": "keras", "name": "sequential/dense"}
    ).json
    assert dense["op"] == "Dense" and ["units", "3"] in dense["attributes"]


def test_torch_graph(torch_logdir: Path) -> None:
    provider = tbkit.read(str(torch_logdir)).provider
    (datum,) = provider.read_blob_sequences("graphs")["torch"][GRAPH]
    expected = {r["name"] for r in node_rows(parse(provider.read_blob(datum.values[0].blob_key)))}
    client = create_app(provider).test_client()
    collapsed = client.get(LAYOUT, query_string={"run": "torch", "tag": GRAPH}).json
    assert ids(collapsed, "scope") == {"input", "output", "Net"} and collapsed["total_ops"] == len(expected)
    everything = client.get(LAYOUT, query_string={"run": "torch", "tag": GRAPH, "all": "1"}).json
    assert ids(everything, "op") == expected
    assert "Net/Linear[fc1]" in {c["id"] for c in everything["clusters"]}


def test_the_latest_graph_is_shown() -> None:
    def graph(*names: str) -> bytes:
        return graph_pb2.GraphDef(
            node=[graph_pb2.NodeDef(name=n, op="Const") for n in names]
        ).SerializeToString()

    points = [(0, 1.0, [graph("a")]), (5, 2.0, [graph("a", "b")])]
    provider = InMemoryProvider(
        {"r": {GRAPH: {"plugin": "graphs", "data_class": "blob_sequence", "points": points}}}
    )
    answer = create_app(provider).test_client().get(LAYOUT, query_string={"run": "r", "tag": GRAPH}).json
    assert answer["step"] == 5 and ids(answer) == {"a", "b"}
