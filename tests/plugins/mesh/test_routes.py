"""Mesh routes: tags joined by mesh name, steps, one mesh per (run, tag, step) with faces and colours,
batches, thinning of large point clouds, errors; tbkit- and torch-written meshes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.plugins.mesh.routes import round_significant
from tbkit.server.app import create_app

TETRA = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
FACES = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], np.int32)
VERTEX_COLORS = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]], np.uint8)
CLOUD = 1000


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run ``tb`` (tbkit): a tetrahedron at steps 0-2, a 2-sample point cloud, a 1,000-point cloud;
    run ``torch`` (torch.utils.tensorboard): a coloured tetrahedron mesh and a plain point cloud."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("mesh")
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(str(root / "tb")) as w:
        for step in range(3):
            w.add_mesh("solid/tetra", TETRA[None] * (step + 1), faces=FACES[None], global_step=step)
        w.add_mesh(
            "cloud/pair",
            rng.normal(size=(2, 5, 3)),
            colors=rng.integers(0, 255, (2, 5, 3)),
            config_dict={"material": {"cls": "PointsMaterial", "size": 0.1}},
            global_step=7,
        )
        w.add_mesh("cloud/big", rng.normal(size=(1, CLOUD, 3)) * 1000, global_step=0)
        w.add_scalar("loss", 1.0, 0)
    torch_writer = TorchWriter(str(root / "torch"))
    for step in (3, 4):
        torch_writer.add_mesh(
            "tetra", TETRA[None] * step, colors=VERTEX_COLORS[None], faces=FACES[None], global_step=step
        )
    torch_writer.add_mesh("points", rng.random((1, 20, 3)), global_step=0)
    torch_writer.close()
    return root


@pytest.fixture(scope="module")
def client(logdir: Path) -> Any:
    return create_app(tbkit.read(str(logdir)).provider).test_client()


def get(client: Any, route: str, **query: Any) -> Any:
    resp = client.get(f"/data/plugin/mesh/{route}", query_string=query)
    assert resp.status_code == 200, resp.json
    return resp.json


def test_tags_name_meshes_not_component_series(client: Any) -> None:
    answer = get(client, "tags")
    assert set(answer) == {"tb", "torch"}
    assert set(answer["tb"]) == {"solid/tetra", "cloud/pair", "cloud/big"}
    assert answer["tb"]["solid/tetra"] == {
        "display_name": "solid/tetra",
        "description": "",
        "max_step": 2,
        "components": ["faces", "vertices"],
        "samples": 1,
        "vertices": 4,
        "faces": 4,
    }
    assert answer["tb"]["cloud/pair"]["samples"] == 2
    assert answer["tb"]["cloud/pair"]["components"] == ["colors", "vertices"]
    assert answer["torch"]["tetra"]["components"] == ["colors", "faces", "vertices"]
    assert answer["torch"]["points"]["vertices"] == 20 and answer["torch"]["points"]["faces"] == 0


def test_the_tab_is_listed_with_its_script(client: Any) -> None:
    entry = client.get("/data/plugins_listing").json["mesh"]
    assert entry["enabled"] and entry["tab_name"] == "Mesh"
    assert entry["script"].endswith("/plugins/mesh/mesh.js")


def test_meshes_lists_steps_with_counts(client: Any) -> None:
    answer = get(client, "meshes", run="tb", tag="solid/tetra")
    assert [m["step"] for m in answer] == [0, 1, 2]
    assert {(m["vertices"], m["faces"], m["colors"], m["samples"]) for m in answer} == {(4, 4, False, 1)}
    (pair,) = get(client, "meshes", run="tb", tag="cloud/pair")
    assert pair["samples"] == 2 and pair["colors"] and pair["faces"] == 0
    assert pair["config"] == {"material": {"cls": "PointsMaterial", "size": 0.1}}
    assert len(get(client, "meshes", run="tb", tag="solid/tetra", steps=2)) == 2


def test_a_mesh_with_faces(client: Any) -> None:
    answer = get(client, "mesh", run="tb", tag="solid/tetra", step=1)
    assert answer["step"] == 1 and answer["samples"] == 1 and answer["total_vertices"] == 4
    assert answer["vertices"] == (TETRA * 2).reshape(-1).tolist()
    assert answer["faces"] == FACES.reshape(-1).tolist()
    assert answer["colors"] is None


def test_the_latest_step_by_default(client: Any) -> None:
    assert get(client, "mesh", run="tb", tag="solid/tetra")["step"] == 2


def test_torch_mesh_with_vertex_colors(client: Any) -> None:
    assert [m["step"] for m in get(client, "meshes", run="torch", tag="tetra")] == [3, 4]
    answer = get(client, "mesh", run="torch", tag="tetra", step=3)
    assert answer["vertices"] == (TETRA * 3).reshape(-1).tolist()
    assert answer["faces"] == FACES.reshape(-1).tolist()
    assert answer["colors"] == VERTEX_COLORS.reshape(-1).tolist()


def test_torch_point_cloud(client: Any, logdir: Path) -> None:
    answer = get(client, "mesh", run="torch", tag="points")
    frame = tbkit.read(str(logdir)).meshes()
    (row,) = frame[(frame.run == "torch") & (frame.tag == "points")].itertuples()
    assert answer["faces"] is None and answer["colors"] is None
    assert answer["vertices"] == pytest.approx(np.asarray(row.vertices[0]).reshape(-1).tolist(), abs=1e-6)


def test_samples_of_a_batch(client: Any, logdir: Path) -> None:
    frame = tbkit.read(str(logdir)).meshes()
    (row,) = frame[(frame.run == "tb") & (frame.tag == "cloud/pair")].itertuples()
    for sample in (0, 1):
        answer = get(client, "mesh", run="tb", tag="cloud/pair", sample=sample)
        assert answer["samples"] == 2
        assert answer["vertices"] == pytest.approx(row.vertices[sample].reshape(-1).tolist(), abs=1e-5)
        assert answer["colors"] == row.colors[sample].reshape(-1).tolist()


def test_a_large_point_cloud_is_thinned_evenly(client: Any, logdir: Path) -> None:
    full = get(client, "mesh", run="tb", tag="cloud/big")
    assert full["total_vertices"] == CLOUD and len(full["vertices"]) == 3 * CLOUD
    thin = get(client, "mesh", run="tb", tag="cloud/big", points=100)
    assert thin["total_vertices"] == CLOUD and len(thin["vertices"]) == 3 * 100
    assert thin["vertices"][:3] == full["vertices"][:3] and thin["vertices"][-3:] == full["vertices"][-3:]


def test_a_mesh_with_faces_is_never_thinned(client: Any) -> None:
    answer = get(client, "mesh", run="tb", tag="solid/tetra", points=2)
    assert len(answer["vertices"]) == 12


def test_round_significant_keeps_float32_precision() -> None:
    values = np.array([1234.5678, 0.001, -3.0e-7], np.float32)
    rounded = round_significant(values)
    assert rounded == pytest.approx(values.astype(np.float64).tolist(), abs=1e-3)
    assert rounded[0] == pytest.approx(1234.568) and len(repr(rounded[0])) <= 9
    assert round_significant(np.zeros(3)) == [0.0, 0.0, 0.0]
    assert round_significant(np.array([np.nan, 1.5])) == [pytest.approx(float("nan"), nan_ok=True), 1.5]


def test_a_provider_without_meshes_lists_none() -> None:
    from tbkit.provider import InMemoryProvider

    provider = InMemoryProvider({})
    client = create_app(provider).test_client()
    assert client.get("/data/plugin/mesh/tags").json == {}


@pytest.mark.parametrize(
    ("route", "query", "status"),
    [
        ("meshes", {"run": "tb"}, 400),
        ("meshes", {"tag": "solid/tetra"}, 400),
        ("meshes", {"run": "nope", "tag": "solid/tetra"}, 404),
        ("meshes", {"run": "tb", "tag": "solid/tetra_VERTEX"}, 404),
        ("meshes", {"run": "tb", "tag": "loss"}, 404),
        ("meshes", {"run": "tb", "tag": "solid/tetra", "steps": "0"}, 400),
        ("mesh", {"run": "tb", "tag": "solid/tetra", "step": "9"}, 404),
        ("mesh", {"run": "tb", "tag": "solid/tetra", "step": "x"}, 400),
        ("mesh", {"run": "tb", "tag": "solid/tetra", "sample": "1"}, 404),
        ("mesh", {"run": "tb", "tag": "solid/tetra", "sample": "-1"}, 400),
        ("mesh", {"run": "tb", "tag": "cloud/big", "points": "0"}, 400),
        ("mesh", {"run": "torch", "tag": "nope"}, 404),
    ],
)
def test_errors(client: Any, route: str, query: dict[str, str], status: int) -> None:
    resp = client.get(f"/data/plugin/mesh/{route}", query_string=query)
    assert resp.status_code == status and "error" in resp.json
