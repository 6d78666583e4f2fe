"""The Graphs dashboard in a real browser: graphs written by tbkit, TensorFlow, Keras and torch render,
scopes open and close, search reveals a hidden node, details show, downloads work."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser._ui import WAIT_MS, get_json, open_dashboard
from tests.plugins.graphs._graphs import write_torch_graph

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "interop" / "fixtures"
VIEW = ".graph-view"


def view_state(page: Any) -> dict[str, str]:
    return page.locator(VIEW).evaluate("el => Object.assign({}, el.dataset)")


def wait_view(page: Any, **attrs: str) -> dict[str, str]:
    """Wait until the graph is drawn (``data-ready="1"``) with every ``data-<attr>`` as given."""
    want = {"ready": "1", **attrs}
    page.locator(VIEW).wait_for(state="attached", timeout=WAIT_MS)
    page.wait_for_function(
        "([sel, want]) => { const el = document.querySelector(sel);"
        " return el && Object.entries(want).every(([k, v]) => el.dataset[k] === v); }",
        arg=[VIEW, want],
        timeout=WAIT_MS,
    )
    return view_state(page)


def node(page: Any, name: str) -> Any:
    return page.locator(f".gnode[data-id='{name}']")


def fit(page: Any) -> None:
    page.click("button.fit")


def loaded(base_url: str) -> None:
    """Wait until the server has read the logdir once (its first load runs in the background)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while get_json(base_url, "data/reload_state").get("loading") and time.monotonic() < deadline:
        time.sleep(0.05)


def test_demo_graph_scopes_details_search_zoom(page, serve, demo_logdir, page_problems):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "graphs")
    state = wait_view(page, run="lr_0.01")
    assert (state["nodes"], state["ops"], state["scopes"], state["clusters"]) == ("4", "1", "3", "0")
    assert state["totalOps"] == "13" and state["edges"] == "3"
    assert page.locator(".gnode").count() == 4 and page.locator(".gedge").count() == 3

    node(page, "layer1").dblclick()  # open a scope: its five ops appear inside a cluster
    state = wait_view(page, clusters="1")
    assert (state["nodes"], state["ops"], state["expanded"]) == ("8", "6", "1")
    assert page.locator(".gcluster[data-id='layer1']").count() == 1
    for name in ("weights", "bias", "matmul", "add", "relu"):
        assert node(page, f"layer1/{name}").count() == 1

    fit(page)
    node(page, "layer1/matmul").click()  # details
    details = page.locator(".graph-details")
    details.locator(".graph-details-title", has_text="layer1/matmul").wait_for(timeout=WAIT_MS)
    assert "MatMul" in details.inner_text() and "layer1/weights" in details.inner_text()
    assert view_state(page)["selected"] == "layer1/matmul"
    assert page.locator(".gedge.hl").count() == 3  # its two inputs and one output

    page.fill(".graph-search", "softmax")  # search finds an op inside a closed scope and opens it
    page.locator(".graph-hit[data-name='loss/softmax']").wait_for(timeout=WAIT_MS)
    page.keyboard.press("Enter")
    state = wait_view(page, clusters="2", selected="loss/softmax")
    assert state["expanded"] == "2" and node(page, "loss/softmax").count() == 1

    scale = float(view_state(page)["scale"])  # the wheel zooms (the viewBox changes)
    page.locator(VIEW).hover()
    page.mouse.wheel(0, -400)
    page.wait_for_function(
        f"() => Number(document.querySelector('{VIEW}').dataset.scale) > {scale}", timeout=WAIT_MS
    )

    page.click("button.collapse-all")
    state = wait_view(page, clusters="0")
    assert state["nodes"] == "4"
    page_problems.check()


def test_downloads(page, serve, demo_logdir, tmp_path):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "graphs")
    wait_view(page)
    with page.expect_download() as svg_download:
        page.click("button.download-svg")
    svg_path = tmp_path / "graph.svg"
    svg_download.value.save_as(svg_path)
    text = svg_path.read_text()
    assert text.startswith("<svg") and 'data-id="layer1"' in text and "tbkit-graph-arrow" in text
    with page.expect_download() as png_download:
        page.click("button.download-png")
    png_path = tmp_path / "graph.png"
    png_download.value.save_as(png_path)
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png_download.value.suggested_filename == "lr_0.01___run_graph__.png"


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph written by ``torch.utils.tensorboard``'s ``add_graph`` (run ``torch``, scope ``Net``)."""
    pytest.importorskip("torch")
    logdir = tmp_path_factory.mktemp("torch_graph")
    write_torch_graph(logdir / "torch")
    return logdir


@pytest.mark.parametrize(
    ("source", "run", "tag", "scope"),
    [
        ("tf_rich", "graph", "__run_graph__", None),  # TensorFlow 1 GraphDef, no scopes
        ("keras", "train", "keras", None),  # Keras conceptual graph: its lone model scope opens
        ("torch", "torch", "__run_graph__", "Net"),  # torch.utils.tensorboard add_graph (scope: the class)
    ],
)
def test_peer_graphs_render(page, serve, torch_logdir, page_problems, source, run, tag, scope):
    logdir = torch_logdir if source == "torch" else FIXTURES / source
    server = serve(logdir)
    loaded(server.url)
    listing = get_json(server.url, "data/plugin/graphs/list")
    plugin = listing[run][tag]["plugin"]
    everything = get_json(server.url, "data/plugin/graphs/layout", run=run, tag=tag, plugin=plugin, all=1)
    total = everything["total_ops"]
    open_dashboard(page, server.url, "graphs")
    state = wait_view(page, run=run, tag=tag, totalOps=str(total))
    assert int(state["nodes"]) == page.locator(".gnode").count() > 0
    assert int(state["edges"]) == page.locator(".gedge").count()
    if scope is not None:  # a collapsed scope opens on double-click
        before = int(state["ops"])
        node(page, scope).dblclick()
        state = wait_view(page, expanded="1")
        assert int(state["ops"]) > before
        assert page.locator(f".gcluster[data-id='{scope}']").count() == 1
    page.click("button.expand-all")
    state = wait_view(page, ops=str(total), scopes="0")
    assert page.locator(".gnode.op").count() == total
    page_problems.check()
