"""The Mesh dashboard in a real browser: point clouds in their logged colours, meshes with faces,
the step slider, and never more than a few live WebGL plots on a page of many cards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbkit
from tests.browser._ui import WAIT_MS, color_pixels, get_json, open_dashboard, wait_plot

pytestmark = pytest.mark.browser

DEMO_RUNS = ("lr_0.1", "lr_0.03", "lr_0.01")
MAX_LIVE = 6  # mesh.js: 3-D plots alive at once
TETRA = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
FACES = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], np.int32)
PURE = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]], np.uint8)
STEPS = (2, 5, 9)


def mesh_card(page, run: str, tag: str):
    return page.locator(f".dashboard[data-dashboard='mesh'] .mesh-card[data-run='{run}'][data-tag='{tag}']")


def test_demo_point_clouds_in_their_colours(page, serve, demo_logdir, page_problems):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "mesh")
    for run in DEMO_RUNS:
        card = mesh_card(page, run, "cloud/points")
        mesh = get_json(server.url, "data/plugin/mesh/mesh", run=run, tag="cloud/points")
        state = wait_plot(page, card, step="0")
        assert state["kind"] == "points" and state["colors"] == "1" and state["faces"] == "0"
        assert state["points"] == str(len(mesh["vertices"]) // 3) == "200"
        assert card.locator("input.mesh-step").is_hidden()  # one step: no slider
        drawn = card.locator(".plot").evaluate("el => [el.data[0].type, el.data[0].marker.color[0]]")
        r, g, b = mesh["colors"][:3]
        assert drawn == ["scatter3d", f"rgb({r},{g},{b})"]
    assert int(page.locator(".dashboard[data-dashboard='mesh']").get_attribute("data-live")) <= MAX_LIVE
    page_problems.check()


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Meshes written by torch.utils.tensorboard: a tetrahedron with pure vertex colours at 3 steps."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("torch_mesh")
    writer = TorchWriter(str(root / "torch_run"))
    for step in STEPS:
        writer.add_mesh("solid", TETRA[None] * step, colors=PURE[None], faces=FACES[None], global_step=step)
    writer.close()
    return root


def test_torch_mesh_faces_colours_and_slider(page, serve, torch_logdir, page_problems):
    server = serve(torch_logdir)
    open_dashboard(page, server.url, "mesh")
    card = mesh_card(page, "torch_run", "solid")
    card.wait_for(timeout=WAIT_MS)
    state = wait_plot(page, card, step=str(STEPS[-1]))
    assert state["kind"] == "mesh" and state["faces"] == "4" and state["points"] == "4"
    assert card.get_attribute("data-steps") == "3"
    trace = card.locator(".plot").evaluate("el => ({type: el.data[0].type, colors: el.data[0].vertexcolor})")
    assert trace == {"type": "mesh3d", "colors": [f"rgb({r},{g},{b})" for r, g, b in PURE.tolist()]}
    png = card.locator(".plot").screenshot()
    lit = sum(color_pixels(png, c, tolerance=90) for c in [(220, 40, 40), (40, 200, 40), (40, 40, 220)])
    assert lit > 200  # the faces are drawn in the logged colours (shaded)
    for index, step in enumerate(STEPS):
        card.locator("input.mesh-step").fill(str(index))
        wait_plot(page, card, step=str(step))
        largest = card.locator(".plot").evaluate("el => Math.max(...el.data[0].x)")
        assert largest == pytest.approx(step)
    page_problems.check()


@pytest.fixture(scope="module")
def many_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten small point clouds in one run: more cards than live 3-D plots allowed."""
    root = tmp_path_factory.mktemp("many_meshes")
    rng = np.random.default_rng(2)
    with tbkit.SummaryWriter(str(root / "run")) as w:
        for i in range(10):
            w.add_mesh(f"clouds/c{i:02d}", rng.normal(size=(1, 30, 3)), global_step=0)
    return root


def test_few_live_webgl_plots_while_scrolling(page, serve, many_logdir, page_problems):
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if "WebGL context" in m.text else None)
    server = serve(many_logdir)
    open_dashboard(page, server.url, "mesh")
    root = page.locator(".dashboard[data-dashboard='mesh']")
    first = mesh_card(page, "run", "clouds/c00")
    wait_plot(page, first)
    tags = [f"clouds/c{i:02d}" for i in range(10)]
    most = 0
    for tag in tags:
        wait_plot(page, mesh_card(page, "run", tag), points="30")
        most = max(most, int(root.get_attribute("data-live")))
        assert root.locator(".plot[data-ready='1']").count() <= MAX_LIVE
    assert first.locator(".plot").get_attribute("data-ready") == "0"  # purged when scrolled away
    wait_plot(page, first, points="30")  # and drawn again when back
    assert 1 <= most <= MAX_LIVE
    assert not warnings, warnings
    page_problems.check()
