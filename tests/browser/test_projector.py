"""The Projector in a real browser: points drawn, search, nearest neighbours as NumPy finds them,
sprite thumbnails, a click on the plot, 3-D and t-SNE; on the demo logdir and on torch-written files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.browser._ui import WAIT_MS, open_dashboard

pytestmark = pytest.mark.browser

PLOT = ".pj-plot"


def _wait_plot(page: Any, **attrs: str) -> dict[str, str]:
    want = {"ready": "1", **attrs}
    page.wait_for_function(
        "want => { const el = document.querySelector('.pj-plot');"
        " return el && Object.entries(want).every(([k, v]) => el.dataset[k] === v); }",
        arg=want,
        timeout=WAIT_MS,
    )
    return page.locator(PLOT).evaluate("el => Object.assign({}, el.dataset)")


def _numpy_neighbors(mat: np.ndarray, index: int, k: int, metric: str) -> tuple[list[int], np.ndarray]:
    if metric == "cosine":
        unit = mat / np.linalg.norm(mat, axis=1, keepdims=True)
        dist = 1.0 - unit @ unit[index]
    else:
        dist = np.linalg.norm(mat - mat[index], axis=1)
    dist[index] = np.inf
    order = np.argsort(dist, kind="stable")[:k]
    return order.tolist(), dist[order]


def _listed_neighbors(page: Any, index: int, metric: str, k: int) -> tuple[list[int], list[float]]:
    page.wait_for_selector(
        f".pj-neighbors[data-index='{index}'][data-metric='{metric}'][data-count='{k}']", timeout=WAIT_MS
    )
    items = page.locator(".pj-neighbor").evaluate_all(
        "els => els.map(e => [Number(e.dataset.index), Number(e.dataset.distance)])"
    )
    return [i for i, _ in items], [d for _, d in items]


def test_demo_embedding_search_and_neighbours(page, serve, demo_logdir, page_problems):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "projector")
    state = _wait_plot(page, points="300")
    assert state["total"] == "300" and state["method"] == "pca" and state["dims"] == "2"
    options = page.locator(".pj-embedding option").evaluate_all("els => els.map(e => JSON.parse(e.value))")
    assert sorted(r for r, _ in options) == ["lr_0.01", "lr_0.03", "lr_0.1"]
    assert {t for _, t in options} == {"features:00059"}
    run = page.locator(".pj-embedding").evaluate("el => JSON.parse(el.value)[0]")
    folder = demo_logdir / run / "00059" / "features"
    mat = np.loadtxt(folder / "tensors.tsv", delimiter="\t")
    labels = (folder / "metadata.tsv").read_text().splitlines()
    legend = page.locator(".pj-legend-item").evaluate_all(
        "els => els.map(e => [e.dataset.value, e.lastChild.textContent])"
    )
    assert sorted(legend) == sorted([c, str(labels.count(c))] for c in {"cat", "dog", "bird"})

    page.fill(".pj-search", "^dog$")
    _wait_plot(page, matches=str(labels.count("dog")))
    first_dog = labels.index("dog")
    match = page.locator(f".pj-match .pj-point[data-index='{first_dog}']")
    match.click()
    _wait_plot(page, selected=str(first_dog))
    listed, distances = _listed_neighbors(page, first_dog, "cosine", 10)
    want, want_distances = _numpy_neighbors(mat, first_dog, 10, "cosine")
    assert listed == want
    np.testing.assert_allclose(distances, want_distances, rtol=1e-9, atol=1e-12)

    page.select_option(".pj-metric", "euclidean")
    page.fill(".pj-k", "5")
    page.locator(".pj-k").dispatch_event("change")
    listed, distances = _listed_neighbors(page, first_dog, "euclidean", 5)
    want, want_distances = _numpy_neighbors(mat, first_dog, 5, "euclidean")
    assert listed == want
    np.testing.assert_allclose(distances, want_distances, rtol=1e-9)

    page.locator(f".pj-neighbor .pj-point[data-index='{want[0]}']").click()  # a neighbour: now selected
    _wait_plot(page, selected=str(want[0]))
    assert (
        _listed_neighbors(page, want[0], "euclidean", 5)[0]
        == _numpy_neighbors(mat, want[0], 5, "euclidean")[0]
    )
    page_problems.check()


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, list[str]]:
    """An embedding written by torch's ``add_embedding``, with labels and a sprite."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("torch_projector")
    rng = np.random.default_rng(5)
    classes = rng.integers(0, 4, 80)
    mat = ((rng.standard_normal((4, 6)) * 3)[classes] + rng.standard_normal((80, 6))).astype(np.float32)
    labels = [f"digit{c}" for c in classes]
    images = torch.rand(80, 3, 8, 8)
    with SummaryWriter(str(root / "torch_run")) as writer:
        writer.add_embedding(
            torch.from_numpy(mat), metadata=labels, label_img=images, global_step=1, tag="feat"
        )
    return root, mat.astype(np.float64), labels


PIXEL_OF_POINT = """([plot, k]) => {
  const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis, box = plot.getBoundingClientRect();
  const x = xa._offset + xa.l2p(plot.data[0].x[k]), y = ya._offset + ya.l2p(plot.data[0].y[k]);
  return [box.left + x, box.top + y];
}"""


def test_torch_embedding_click_thumbnails_3d_and_tsne(page, serve, torch_logdir, page_problems):
    root, mat, labels = torch_logdir
    server = serve(root)
    open_dashboard(page, server.url, "projector")
    _wait_plot(page, points="80", sprite="1")

    # click the point lying farthest from the others on the 2-D plot
    coords = np.array(
        page.locator(PLOT).evaluate("p => [Array.from(p.data[0].x), Array.from(p.data[0].y)]")
    ).T
    gaps = np.linalg.norm(coords[:, None] - coords[None], axis=-1) + np.eye(80) * 1e9
    k = int(np.argmax(gaps.min(axis=1)))
    x, y = page.evaluate(PIXEL_OF_POINT, [page.locator(PLOT).element_handle(), k])
    page.mouse.click(x, y)
    _wait_plot(page, selected=str(k))
    assert page.locator(".pj-selected-title").inner_text() == f"#{k} {labels[k]}"
    assert page.locator(".pj-selected .pj-thumb").count() == 1
    page.select_option(".pj-metric", "euclidean")
    listed, _ = _listed_neighbors(page, k, "euclidean", 10)
    assert listed == _numpy_neighbors(mat, k, 10, "euclidean")[0]
    assert page.locator(".pj-neighbor .pj-thumb").count() == 10

    page.select_option(".pj-dims", "3")
    _wait_plot(page, dims="3", points="80")
    assert page.locator(f"{PLOT} .gl-container canvas").count() >= 1

    page.select_option(".pj-method", "tsne")  # starts at once; run again with fewer iterations
    page.fill(".pj-iterations", "150")
    page.click(".pj-run")
    page.wait_for_selector(".pj-job[data-state='done'][data-iteration='150']", timeout=WAIT_MS)
    _wait_plot(page, method="tsne", dims="3", points="80")
    assert page.locator(".pj-progress-text").inner_text().startswith("iteration 150 / 150")
    page_problems.check()
