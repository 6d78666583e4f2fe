"""Projector routes: listing, metadata, sprites, PCA, nearest neighbours, t-SNE jobs, errors."""

from __future__ import annotations

import base64
import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

import tbkit
from tbkit.plugins.projector import reduce
from tbkit.plugins.projector.routes import TSNE_MAX_POINTS
from tbkit.server.app import create_app

P = "/data/plugin/projector"
N, D = 60, 8


def _coords(answer: dict[str, Any], width: int) -> np.ndarray:
    return np.frombuffer(base64.b64decode(answer["coords"]), dtype="<f4").reshape(-1, width)


def _points(seed: int = 0, n: int = N, d: int = D) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    mat = (rng.standard_normal((3, d)) * 4)[labels] + rng.standard_normal((n, d))
    return mat, [["cat", "dog", "bird"][c] for c in labels]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run ``a``: embedding ``words`` (labels, 2-column metadata, a sprite) and ``plain`` (no metadata);
    run ``scalars_only``: no projector files."""
    root = tmp_path_factory.mktemp("projector")
    mat, labels = _points()
    images = np.random.default_rng(1).random((N, 3, 4, 5))
    with tbkit.SummaryWriter(str(root / "a")) as w:
        rows = [[label, str(i)] for i, label in enumerate(labels)]
        w.add_embedding(
            mat, rows, label_img=images, tag="words", global_step=2, metadata_header=["label", "id"]
        )
        w.add_embedding(mat[:10] * 2, tag="plain", global_step=3)
    with tbkit.SummaryWriter(str(root / "scalars_only")) as w:
        w.add_scalar("loss", 1.0, 0)
    return root


@pytest.fixture(scope="module")
def app(logdir: Path) -> Any:
    return create_app(tbkit.read(str(logdir)).provider)


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


WORDS = {"run": "a", "tensor": "words:00002"}


def test_tab_enabled_by_projector_files(client: Any, tmp_path: Path) -> None:
    assert client.get("/data/plugins_listing").json["projector"]["enabled"] is True
    with tbkit.SummaryWriter(str(tmp_path / "r")) as w:
        w.add_scalar("x", 1.0, 0)
    other = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    assert other.get("/data/plugins_listing").json["projector"]["enabled"] is False


def test_embeddings_listing(client: Any) -> None:
    answer = client.get(f"{P}/embeddings").json
    assert list(answer["runs"]) == ["a"]
    words, plain = answer["runs"]["a"]
    assert words == {
        "name": "words:00002",
        "step": 2,
        "tensor_path": "00002/words/tensors.tsv",
        "shape": None,
        "metadata": True,
        "sprite": {"width": 5, "height": 4},
        "available": True,
    }
    assert plain["name"] == "plain:00003" and plain["metadata"] is False and plain["sprite"] is None
    assert answer["methods"][:2] == ["pca", "tsne"]
    assert (
        answer["tsne"]["engines"][0] == "numpy" and answer["tsne"]["max_points"]["numpy"] == TSNE_MAX_POINTS
    )
    assert client.get(f"{P}/embeddings?runs=scalars_only").json["runs"] == {}
    assert client.get(f"{P}/embeddings?runs=nope").status_code == 404


def test_metadata_columns_and_sprite_geometry(client: Any, logdir: Path) -> None:
    answer = client.get(f"{P}/metadata", query_string=WORDS).json
    _, labels = _points()
    assert answer["shape"] == [N, D]
    assert answer["columns"] == ["label", "id"]
    assert answer["values"] == [labels, [str(i) for i in range(N)]]
    assert answer["sprite"] == {"width": 5, "height": 4, "per_row": 8}
    assert answer["warnings"] == []
    plain = client.get(f"{P}/metadata", query_string={"run": "a", "tensor": "plain:00003"}).json
    assert (
        plain["shape"] == [10, D]
        and plain["columns"] == []
        and plain["values"] == []
        and plain["sprite"] is None
    )


def test_sprite_is_the_png_written(client: Any, logdir: Path) -> None:
    answer = client.get(f"{P}/sprite", query_string=WORDS)
    assert answer.status_code == 200 and answer.mimetype == "image/png"
    assert answer.data == (logdir / "a" / "00002" / "words" / "sprite.png").read_bytes()
    assert Image.open(io.BytesIO(answer.data)).size == (8 * 5, 8 * 4)
    assert client.get(f"{P}/sprite", query_string={"run": "a", "tensor": "plain:00003"}).status_code == 404


def test_pca_matches_numpy_svd(client: Any) -> None:
    answer = client.get(f"{P}/pca", query_string=WORDS).json
    assert answer["shape"] == [N, D] and answer["components"] == D  # min(10, D)
    coords = _coords(answer, answer["components"])
    mat, _ = _points()
    centred = mat - mat.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    reference = u * s
    for c in range(3):  # the leading components, up to sign
        sign = np.sign(reference[:, c] @ coords[:, c])
        np.testing.assert_allclose(coords[:, c], sign * reference[:, c], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(answer["variance"], s**2 / np.sum(s**2), rtol=1e-6)
    three = client.get(f"{P}/pca", query_string={**WORDS, "components": 3}).json
    assert three["components"] == 3 and _coords(three, 3).shape == (N, 3)
    np.testing.assert_array_equal(_coords(three, 3), coords[:, :3])


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("index", [0, 17, N - 1])
def test_neighbors_match_numpy(client: Any, metric: str, index: int) -> None:
    answer = client.get(
        f"{P}/neighbors", query_string={**WORDS, "index": index, "k": 7, "metric": metric}
    ).json
    mat, _ = _points()
    if metric == "cosine":
        unit = mat / np.linalg.norm(mat, axis=1, keepdims=True)
        dist = 1 - unit @ unit[index]
    else:
        dist = np.linalg.norm(mat - mat[index], axis=1)
    dist[index] = np.inf
    want = np.argsort(dist, kind="stable")[:7]
    assert answer["index"] == index and answer["metric"] == metric
    assert [nb["index"] for nb in answer["neighbors"]] == want.tolist()
    np.testing.assert_allclose(
        [nb["distance"] for nb in answer["neighbors"]], dist[want], rtol=1e-9, atol=1e-12
    )


def test_neighbors_default_and_k_beyond_n(client: Any) -> None:
    answer = client.get(
        f"{P}/neighbors", query_string={"run": "a", "tensor": "plain:00003", "index": 0, "k": 50}
    )
    assert answer.json["metric"] == "cosine" and len(answer.json["neighbors"]) == 9


def _wait(client: Any, job: str, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"{P}/job", query_string={"id": job, "coords": 1}).json
        if state["state"] != "running" or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def test_tsne_job_runs_to_a_layout(client: Any) -> None:
    started = client.post(f"{P}/tsne", json={**WORDS, "iterations": 120, "perplexity": 10}).json
    assert started["method"] == "tsne" and started["points"] == N and started["total"] == N
    assert started["indices"] is None and started["dims"] == 2 and started["engine"] == "numpy"
    done = _wait(client, started["job"])
    assert done["state"] == "done" and done["iteration"] == done["iterations"] == 120
    layout = _coords(done, 2)
    mat, _ = _points()
    want = reduce.tsne(mat, iterations=120, perplexity=10)
    np.testing.assert_allclose(layout, want.astype(np.float32), rtol=1e-4, atol=1e-4)
    without = client.get(f"{P}/job", query_string={"id": started["job"]}).json
    assert without["coords"] is None and without["state"] == "done"


def test_tsne_samples_large_embeddings_and_lays_out_in_3d(client: Any) -> None:
    started = client.post(
        f"{P}/tsne", json={**WORDS, "iterations": 20, "points": 25, "dims": 3, "seed": 4}
    ).json
    assert started["points"] == 25 and started["total"] == N
    assert started["indices"] == reduce.sample_indices(N, 25, 4).tolist()
    done = _wait(client, started["job"])
    assert done["state"] == "done" and _coords(done, 3).shape == (25, 3)


def test_tsne_params_in_the_query_string(client: Any) -> None:
    started = client.post(f"{P}/tsne?run=a&tensor=plain:00003&iterations=10")
    assert started.status_code == 200
    assert _wait(client, started.json["job"])["state"] == "done"


def test_cancel_stops_a_job(client: Any) -> None:
    started = client.post(f"{P}/tsne", json={**WORDS, "iterations": 5000}).json
    assert client.post(f"{P}/job/cancel", json={"id": started["job"]}).json == {
        "id": started["job"],
        "cancelled": True,
    }
    state = _wait(client, started["job"])
    assert state["state"] == "cancelled" and state["iteration"] < 5000


@pytest.mark.parametrize(
    ("route", "query", "status"),
    [
        ("metadata", {"run": "a"}, 400),
        ("metadata", {"tensor": "words:00002"}, 400),
        ("metadata", {"run": "nope", "tensor": "words:00002"}, 404),
        ("metadata", {"run": "a", "tensor": "nope"}, 404),
        ("metadata", {"run": "scalars_only", "tensor": "words:00002"}, 404),
        ("sprite", {"run": "a", "tensor": "nope"}, 404),
        ("pca", {**WORDS, "components": 0}, 400),
        ("pca", {**WORDS, "components": "x"}, 400),
        ("neighbors", WORDS, 400),
        ("neighbors", {**WORDS, "index": N}, 400),
        ("neighbors", {**WORDS, "index": -1}, 400),
        ("neighbors", {**WORDS, "index": 0, "metric": "manhattan"}, 400),
        ("neighbors", {**WORDS, "index": 0, "k": 0}, 400),
        ("job", {"id": "nope"}, 404),
        ("job", {}, 400),
    ],
)
def test_get_errors(client: Any, route: str, query: dict[str, Any], status: int) -> None:
    assert client.get(f"{P}/{route}", query_string=query).status_code == status


@pytest.mark.parametrize(
    ("route", "body", "status"),
    [
        ("tsne", {**WORDS, "dims": 4}, 400),
        ("tsne", {**WORDS, "perplexity": 1}, 400),
        ("tsne", {**WORDS, "iterations": 5}, 400),
        ("tsne", {**WORDS, "points": TSNE_MAX_POINTS + 1}, 400),
        ("tsne", {**WORDS, "engine": "gpu"}, 400),
        ("tsne", {"run": "a", "tensor": "nope"}, 404),
        ("job/cancel", {"id": "nope"}, 404),
    ],
)
def test_post_errors(client: Any, route: str, body: dict[str, Any], status: int) -> None:
    assert client.post(f"{P}/{route}", json=body).status_code == status


@pytest.mark.skipif(reduce.umap_available(), reason="umap-learn is installed")
def test_umap_without_umap_learn_is_a_clear_400(client: Any) -> None:
    answer = client.post(f"{P}/umap", json=WORDS)
    assert answer.status_code == 400 and "umap-learn" in answer.json["error"]
    assert "umap" not in client.get(f"{P}/embeddings").json["methods"]


@pytest.mark.skipif(reduce.sklearn_available(), reason="scikit-learn is installed")
def test_sklearn_engine_refused_without_sklearn(client: Any) -> None:
    assert client.post(f"{P}/tsne", json={**WORDS, "engine": "sklearn"}).status_code == 400


def test_torch_written_embedding(tmp_path: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    mat, labels = _points(3, 30, 5)
    with SummaryWriter(str(tmp_path / "t")) as w:
        w.add_embedding(torch.tensor(mat), metadata=labels, label_img=torch.zeros(30, 1, 6, 6), tag="emb")
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    listed = client.get(f"{P}/embeddings").json["runs"]["t"]
    assert [e["name"] for e in listed] == ["emb:00000"] and listed[0]["sprite"] == {"width": 6, "height": 6}
    query = {"run": "t", "tensor": "emb:00000"}
    meta = client.get(f"{P}/metadata", query_string=query).json
    assert meta["shape"] == [30, 5] and meta["columns"] == ["label"] and meta["values"] == [labels]
    nb = client.get(f"{P}/neighbors", query_string={**query, "index": 2, "metric": "euclidean", "k": 3}).json
    dist = np.linalg.norm(mat - mat[2], axis=1)
    dist[2] = np.inf
    assert [n["index"] for n in nb["neighbors"]] == np.argsort(dist)[:3].tolist()
    assert client.get(f"{P}/sprite", query_string=query).mimetype == "image/png"


def _config(run: Path, text: str) -> None:
    run.mkdir(parents=True, exist_ok=True)
    (run / "projector_config.pbtxt").write_text(text)
    if not any(run.glob("events.*")):
        with tbkit.SummaryWriter(str(run)) as w:
            w.add_scalar("x", 0.0, 0)


def test_hand_written_config_bytes_tensor_and_short_metadata(tmp_path: Path) -> None:
    run = tmp_path / "r"
    values = np.arange(12, dtype="<f4").reshape(4, 3)
    _config(
        run,
        'embeddings { tensor_name: "bin" tensor_path: "t.bytes" tensor_shape: 4 tensor_shape: 3 '
        'metadata_path: "m.tsv" }\n'
        'embeddings { tensor_name: "gone" tensor_path: "missing.tsv" }\n',
    )
    (run / "t.bytes").write_bytes(values.tobytes())
    (run / "m.tsv").write_text("x\ny\n")
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    listed = {e["name"]: e for e in client.get(f"{P}/embeddings").json["runs"]["r"]}
    assert listed["bin"]["shape"] == [4, 3] and listed["bin"]["available"] is True
    assert listed["gone"]["available"] is False
    meta = client.get(f"{P}/metadata", query_string={"run": "r", "tensor": "bin"}).json
    assert meta["shape"] == [4, 3] and meta["values"] == [["x", "y", "", ""]]
    assert meta["warnings"] == ["m.tsv has 2 rows for 4 points"]
    nb = client.get(
        f"{P}/neighbors", query_string={"run": "r", "tensor": "bin", "index": 0, "metric": "euclidean"}
    )
    assert [n["index"] for n in nb.json["neighbors"]] == [1, 2, 3]
    assert client.get(f"{P}/metadata", query_string={"run": "r", "tensor": "gone"}).status_code == 404


def test_unparsable_files(tmp_path: Path) -> None:
    _config(tmp_path / "bad_config", "embeddings { nonsense")
    _config(tmp_path / "bad_tensor", 'embeddings { tensor_name: "t" tensor_path: "t.tsv" }')
    (tmp_path / "bad_tensor" / "t.tsv").write_text("1\t2\n3\n")
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    assert list(client.get(f"{P}/embeddings").json["runs"]) == ["bad_tensor"]
    answer = client.get(f"{P}/pca", query_string={"run": "bad_tensor", "tensor": "t"})
    assert answer.status_code == 500 and "not a tensor file" in answer.json["error"]
    # a config that does not parse names no embedding (the reader records it as a problem)
    assert client.get(f"{P}/pca", query_string={"run": "bad_config", "tensor": "t"}).status_code == 404


def test_rewritten_tensor_file_is_read_again(tmp_path: Path) -> None:
    run = tmp_path / "r"
    _config(run, 'embeddings { tensor_name: "t" tensor_path: "t.tsv" }')
    (run / "t.tsv").write_text("0\t0\n1\t0\n")
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    query = {"run": "r", "tensor": "t"}
    assert client.get(f"{P}/metadata", query_string=query).json["shape"] == [2, 2]
    (run / "t.tsv").write_text("0\t0\n1\t0\n5\t5\n")
    assert client.get(f"{P}/metadata", query_string=query).json["shape"] == [3, 2]
