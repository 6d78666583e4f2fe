"""A graph whose names nest 3,000 scopes deep: every graph route answers, none with a 500."""

from __future__ import annotations

from typing import Any

import pytest

import tbkit
from tbkit import SummaryWriter
from tbkit.plugins.graphs.scopes import MAX_DEPTH
from tbkit.proto import event_pb2, graph_pb2
from tbkit.server.app import create_app

DEPTH = 3000
SCOPE = "/".join(f"s{i}" for i in range(DEPTH))
BASE = "/data/plugin/graphs"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("deep_graph")
    graph = graph_pb2.GraphDef()
    const = graph.node.add(name=f"{SCOPE}/a", op="Const")
    ident = graph.node.add(name=f"{SCOPE}/b", op="Identity", input=[const.name])
    graph.node.add(name="top", op="Identity", input=[ident.name])
    with SummaryWriter(str(root / "run")) as w:
        w.file_writer.add_event(event_pb2.Event(graph_def=graph.SerializeToString()))
    return create_app(tbkit.read(str(root)).provider).test_client()


ARGS = {"run": "run", "tag": "__run_graph__"}


@pytest.mark.parametrize("extra", [{}, {"all": "1"}, {"expanded": SCOPE}])
def test_layout_of_a_3000_level_scope(client: Any, extra: dict[str, str]) -> None:
    # Before: 500, RecursionError (ScopedGraph created a scope's parents recursively).
    response = client.get(f"{BASE}/layout", query_string={**ARGS, **extra})
    assert response.status_code == 200
    answer = response.json
    assert answer["total_ops"] == 3 and answer["total_scopes"] == MAX_DEPTH  # deeper levels fold in
    if extra:
        assert len(answer["expanded"]) == MAX_DEPTH
        assert {n["id"] for n in answer["nodes"] if n["kind"] == "op"} >= {f"{SCOPE}/a", f"{SCOPE}/b"}


def test_node_and_search_of_a_3000_level_scope(client: Any) -> None:
    op = client.get(f"{BASE}/node", query_string={**ARGS, "name": f"{SCOPE}/a"})
    assert op.status_code == 200 and op.json["name"] == f"{SCOPE}/a"
    found = client.get(f"{BASE}/search", query_string={**ARGS, "q": "identity"}).json
    assert sorted(m["name"] for m in found["matches"]) == [f"{SCOPE}/b", "top"]
    deepest = "/".join(SCOPE.split("/")[:MAX_DEPTH])
    assert all(m["scope"] in ("", deepest) for m in found["matches"])
