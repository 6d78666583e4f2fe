"""The graph dashboard's server side: the layered layout, name scopes, the compound drawing, details."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tbkit.plugins.graphs.layout import (
    _pav,
    assign_layers,
    break_cycles,
    layered_layout,
)
from tbkit.plugins.graphs.scopes import ScopedGraph
from tbkit.plugins.graphs.source import LoadedGraph, format_attr
from tbkit.plugins.graphs.view import draw
from tbkit.proto import graph_pb2, tensor_pb2, tensor_shape_pb2, types_pb2


def random_dag(n: int, extra: float, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    edges = []
    for v in range(1, n):
        edges.append((int(rng.integers(max(0, v - 8), v)), v))
        if rng.random() < extra:
            edges.append((int(rng.integers(0, v)), v))
    return edges


def rows(*spec: tuple[str, str, list[str]]) -> list[dict]:
    return [{"name": name, "op": op, "inputs": inputs} for name, op, inputs in spec]


def nested_rows(blocks: int) -> list[dict]:
    """A chain of blocks ``net/block_i/{a,b}/...`` with a skip edge per block."""
    out = [{"name": "x", "op": "Placeholder", "inputs": []}]
    last = "x"
    for i in range(blocks):
        b = f"net/block_{i}"
        out += rows(
            (f"{b}/a/w", "Const", []),
            (f"{b}/a/mul", "MatMul", [last, f"{b}/a/w"]),
            (f"{b}/b/relu", "Relu", [f"{b}/a/mul"]),
            (f"{b}/add", "AddV2", [last, f"{b}/b/relu"]),
        )
        last = f"{b}/add"
    out += rows(("loss", "Mean", [last]))
    return out


# ---------------------------------------------------------------- layering and ordering


def test_break_cycles_leaves_an_acyclic_graph() -> None:
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)]
    flipped = break_cycles(4, edges)
    dag = [(v, u) if f else (u, v) for (u, v), f in zip(edges, flipped, strict=True)]
    layers = assign_layers(4, list(dict.fromkeys(dag)))  # raises on a cycle
    assert all(layers[u] < layers[v] for u, v in dag)
    assert 0 < sum(flipped) < len(edges)


def test_assign_layers_refuses_a_cycle() -> None:
    with pytest.raises(ValueError, match="acyclic"):
        assign_layers(2, [(0, 1), (1, 0)])


def test_sources_sit_just_above_their_first_user_and_isolated_nodes_wrap_below() -> None:
    # 0 -> 1 -> 2 -> 3; the constant 4 feeds only 3; 5..24 have no edges
    layers = assign_layers(25, [(0, 1), (1, 2), (2, 3), (4, 3)], isolated_per_row=8)
    assert layers[:5].tolist() == [0, 1, 2, 3, 2]
    assert sorted(set(layers[5:].tolist())) == [4, 5, 6]


def test_pinned_nodes_get_a_first_and_a_last_layer_of_their_own() -> None:
    layers = assign_layers(4, [(0, 1), (1, 2), (3, 2)], top=[0], bottom=[2])
    assert layers[0] == 0 and layers[2] == max(layers) and set(layers[[1, 3]].tolist()) == {1}


def test_barycenter_sweeps_untangle_a_bipartite_graph() -> None:
    # two layers of 6; node i on top links to node 6 + (5 - i): drawn naively, every pair crosses
    edges = [(i, 6 + (5 - i)) for i in range(6)]
    out = layered_layout([(30, 20)] * 12, edges)
    assert out.crossings == 0
    top = np.argsort(out.x[:6])
    bottom = np.argsort(out.x[6:])
    assert [6 + (5 - i) for i in top] == [6 + b for b in bottom]


def test_pav_keeps_order_and_gaps_and_leaves_feasible_targets_alone() -> None:
    assert _pav([0.0, 5.0, 9.0], [1.0, 1.0, 1.0], [0, 3]) == [0.0, 5.0, 9.0]
    pooled = _pav([3.0, 1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0, 2, 4])
    assert pooled == [2.0, 2.0, 1.0, 1.0]  # two independent runs, each pooled to its mean


@pytest.mark.parametrize("seed", range(5))
def test_layered_layout_invariants(seed: int) -> None:
    n = 80
    edges = [*random_dag(n, 0.4, seed), (5, 2), (7, 7), (3, 9), (3, 9)]  # a cycle, a self-loop, a duplicate
    rng = np.random.default_rng(seed)
    sizes = [(float(rng.integers(30, 120)), float(rng.integers(16, 40))) for _ in range(n)]
    out = layered_layout(sizes, edges, node_sep=10, rank_sep=30)
    w = np.array([s[0] for s in sizes])
    h = np.array([s[1] for s in sizes])
    assert (out.x - w / 2 >= -1e-6).all() and (out.x + w / 2 <= out.width + 1e-6).all()
    assert (out.y - h / 2 >= -1e-6).all() and (out.y + h / 2 <= out.height + 1e-6).all()
    for layer in set(out.layers.tolist()):  # boxes of a layer never overlap
        members = np.flatnonzero(out.layers == layer)
        order = members[np.argsort(out.x[members])]
        gaps = (out.x[order[1:]] - w[order[1:]] / 2) - (out.x[order[:-1]] + w[order[:-1]] / 2)
        assert (gaps >= 10 - 1e-6).all()
    seen = set()
    for (u, v), route in zip(edges, out.routes, strict=True):
        if u == v or (u, v) in seen:
            assert route == []
            continue
        seen.add((u, v))
        assert len(route) == abs(int(out.layers[v]) - int(out.layers[u])) - 1
        ys = [out.y[u]] + [p[1] for p in route] + [out.y[v]]
        assert ys == sorted(ys) or ys == sorted(ys, reverse=True)  # monotonic, down (or up: reversed)


def test_layered_layout_edge_cases() -> None:
    empty = layered_layout([], [])
    assert empty.width == 0 and len(empty.x) == 0
    one = layered_layout([(50, 20)], [])
    assert one.x.tolist() == [25.0] and one.y.tolist() == [10.0]
    lonely = layered_layout([(10, 10)] * 30, [])  # no edges: wrapped in rows, not one long row
    assert len(set(lonely.layers.tolist())) > 1


def test_layout_of_two_thousand_nodes_has_few_crossings() -> None:
    edges = random_dag(2000, 0.05, 3)
    out = layered_layout([(60, 20)] * 2000, edges)
    assert len(out.x) == 2000 and out.crossings < len(edges)


# ---------------------------------------------------------------- scopes


def test_scopes_inputs_and_a_name_that_is_also_a_scope() -> None:
    g = ScopedGraph.from_rows(
        rows(
            ("a", "Const", []),
            ("a/b", "Neg", ["a"]),
            ("a/c", "Split", ["^a/b", "ghost"]),
            ("d", "Add", ["a/c:1", "a/c"]),
        )
    )
    assert g.scope_names == ["", "a"]
    assert g.op_scope == [1, 1, 1, 0]  # "a" lives inside its own scope
    assert g.edges == [(0, 1, False), (1, 2, True), (2, 3, False), (2, 3, False)]
    view = g.visible(frozenset())
    assert [(i.name, i.kind) for i in view.items] == [("d", "op"), ("a", "scope")]
    (edge,) = view.edges
    assert (view.items[edge.source].name, view.items[edge.target].name, edge.count) == ("a", "d", 2)
    opened = g.visible(g.normalize(["a"]))
    assert {(i.name, i.kind) for i in opened.items} == {
        ("d", "op"),
        ("a", "cluster"),
        ("a", "op"),
        ("a/b", "op"),
        ("a/c", "op"),
    }
    control = [e for e in opened.edges if opened.items[e.target].name == "a/c"]
    assert [e.control for e in control] == [True]


def test_normalize_adds_parents_and_drops_unknown_names() -> None:
    g = ScopedGraph.from_rows(nested_rows(2))
    assert {g.scope_names[s] for s in g.normalize(["net/block_1/a", "nope", ""])} == {
        "net",
        "net/block_1",
        "net/block_1/a",
    }


def test_default_expanded_opens_a_lone_top_scope_only() -> None:
    keras = ScopedGraph.from_rows(rows(("m/in", "InputLayer", []), ("m/d", "Dense", ["m/in"])))
    assert [keras.scope_names[s] for s in keras.default_expanded()] == ["m"]
    assert ScopedGraph.from_rows(nested_rows(2)).default_expanded() == frozenset()


def test_scope_ops_counts_every_level() -> None:
    g = ScopedGraph.from_rows(nested_rows(3))
    net = g.scope_index["net"]
    assert g.op_count[net] == 12
    assert dict(g.scope_ops(net)) == {"Const": 3, "MatMul": 3, "Relu": 3, "AddV2": 3}


# ---------------------------------------------------------------- the drawing


def inside(child: dict, parent: dict) -> bool:
    return (
        child["x"] >= parent["x"] - 0.2
        and child["y"] >= parent["y"] - 0.2
        and child["x"] + child["w"] <= parent["x"] + parent["w"] + 0.2
        and child["y"] + child["h"] <= parent["y"] + parent["h"] + 0.2
    )


def test_draw_collapsed_expanded_and_everything() -> None:
    g = ScopedGraph.from_rows(nested_rows(4))
    collapsed = draw(g, frozenset())
    assert [(n["id"], n["kind"]) for n in collapsed["nodes"]] == [
        ("x", "op"),
        ("loss", "op"),
        ("net", "scope"),
    ]
    assert collapsed["clusters"] == [] and len(collapsed["edges"]) == 2
    assert next(n for n in collapsed["nodes"] if n["id"] == "net")["count"] == 16

    everything = draw(g, g.all_scopes())
    ops = [n for n in everything["nodes"] if n["kind"] == "op"]
    assert len(ops) == len(g.names) and not [n for n in everything["nodes"] if n["kind"] == "scope"]
    boxes = {n["id"]: n for n in everything["nodes"]}
    clusters = {c["id"]: c for c in everything["clusters"]}
    assert set(clusters) == {name for name in g.scope_names if name}
    for item in list(boxes.values()) + list(clusters.values()):
        if item["parent"] is not None:
            assert inside(item, clusters[item["parent"]]), item
        assert item["x"] >= 0 and item["x"] + item["w"] <= everything["width"]
    for edge in everything["edges"]:
        src, dst = boxes[edge["source"]], boxes[edge["target"]]
        p = edge["points"]
        assert (p[0], p[1]) == (round(src["x"] + src["w"] / 2, 1), round(src["y"] + src["h"], 1))
        assert (p[-2], p[-1]) == (round(dst["x"] + dst["w"] / 2, 1), round(dst["y"], 1))
    # x feeds block_0/add directly: out of nothing, into two clusters (net, block_0) through their ports
    skip = next(e for e in everything["edges"] if (e["source"], e["target"]) == ("x", "net/block_0/add"))
    assert len(skip["points"]) >= 2 * 6
    json.dumps(everything)  # JSON-ready


def test_sibling_clusters_do_not_overlap() -> None:
    g = ScopedGraph.from_rows(nested_rows(3))
    drawn = draw(g, g.normalize(["net/block_0/a", "net/block_0/b", "net/block_1"]))
    clusters = [c for c in drawn["clusters"] if c["parent"] == "net/block_0"]
    assert len(clusters) == 2
    a, b = clusters
    apart_x = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
    apart_y = a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]
    assert apart_x or apart_y


# ---------------------------------------------------------------- details


def test_format_attr_kinds() -> None:
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in (-1, 3)]
    )
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape, float_val=[1.0] * 9)
    A = graph_pb2.AttrValue
    cases = [
        (A(s=b"SAME"), "SAME"),
        (A(i=7), "7"),
        (A(b=True), "True"),
        (A(type=types_pb2.DT_INT64), "int64"),
        (A(shape=shape), "(?, 3)"),
        (A(tensor=tensor), "tensor float (?, 3)"),
        (A(list=A.ListValue(i=[1, 2, 2, 1])), "[1, 2, 2, 1]"),
        (A(func=graph_pb2.NameAttrList(name="body")), "function body"),
        (A(s=b"x" * 1000), "x" * 299 + "…"),
    ]
    for value, text in cases:
        assert format_attr(value) == text


def test_details_of_an_op_graph() -> None:
    g = graph_pb2.GraphDef()
    g.node.add(name="s/x", op="Placeholder")
    mul = g.node.add(name="s/y", op="Mul", input=["s/x", "^s/x", "gone:0"], device="/cpu:0")
    mul.attr["T"].type = types_pb2.DT_FLOAT
    loaded = LoadedGraph.from_graph_def(g)
    details = loaded.details("s/y")
    assert details["device"] == "/cpu:0" and details["attributes"] == [["T", "float"]]
    assert [(i["name"], i["control"], i["missing"]) for i in details["inputs"]] == [
        ("s/x", False, False),
        ("s/x", True, False),
        ("gone", False, True),
    ]
    assert loaded.details("s/x")["outputs"] == ["s/y"]
    assert loaded.details("nope") is None
    assert loaded.scope_details("s")["count"] == 2 and loaded.scope_details("") is None


def test_details_of_a_keras_functional_model() -> None:
    config = {
        "class_name": "Functional",
        "config": {
            "name": "model",
            "layers": [
                {
                    "class_name": "InputLayer",
                    "name": "inp",
                    "config": {"name": "inp", "batch_shape": [None, 4]},
                },
                {
                    "class_name": "Dense",
                    "name": "dense",
                    "config": {"name": "dense", "units": 3, "activation": "relu"},
                    "inbound_nodes": [{"args": [{"config": {"keras_history": ["inp", 0, 0]}}]}],
                },
            ],
        },
    }
    loaded = LoadedGraph.from_blob("graph_keras_model", json.dumps(config).encode())
    assert loaded.kind == "keras"
    dense = loaded.details("model/dense")
    assert dense["op"] == "Dense" and dense["inputs"][0]["name"] == "model/inp"
    assert dense["attributes"] == [["activation", "relu"], ["units", "3"]]
