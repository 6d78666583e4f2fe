"""Graphs dashboard benchmark: a 2,000-op GraphDef with nested name scopes.

The graph is a transformer-like stack (``model/block_<i>/{attn,mlp,norm1,norm2}/...``).
Figures (seconds):

- ``figure``: page open (``page.goto``) to the dashboard's ``data-ready`` with the default
  (collapsed) scopes; target 3 s.
- ``expand_all``: a click on *Expand all* to every op drawn (all 2,000 boxes, nested clusters).
- ``zoom_step_expanded``: one mouse-wheel zoom step on that drawing, to the next painted frame.
- ``layout_python_collapsed``, ``layout_python_expanded``: the server's layout alone, in this
  process (:func:`tbkit.plugins.graphs.view.draw`), without the cache.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

TARGETS = {"figure": 3.0}
ZOOM_STEPS = """async () => {
  const view = document.querySelector(".graph-view");
  const r = view.getBoundingClientRect();
  const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  await frame();
  const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true, cancelable: true };
  const started = performance.now();
  for (let i = 0; i < 10; i++) {
    view.dispatchEvent(new WheelEvent("wheel", { ...at, deltaY: i < 5 ? -200 : 200 }));
    await frame();
  }
  return (performance.now() - started) / 10 / 1000;
}"""  # seconds per wheel step (event to a painted frame), on the fully expanded graph
BLOCKS = 38  # 53 ops per block, plus 4: 2,018 ops


def big_graph(blocks: int = BLOCKS) -> Any:
    """A ``GraphDef`` of ``blocks`` transformer blocks with nested scopes (about 49 ops each)."""
    from tbkit.proto import graph_pb2

    graph = graph_pb2.GraphDef()

    def node(name: str, op: str, *inputs: str) -> str:
        graph.node.add(name=name, op=op).input.extend(inputs)
        return name

    def dense(scope: str, x: str) -> str:
        w = node(f"{scope}/kernel", "VariableV2")
        b = node(f"{scope}/bias", "VariableV2")
        return node(f"{scope}/add", "AddV2", node(f"{scope}/matmul", "MatMul", x, w), b)

    def norm(scope: str, x: str) -> str:
        mean = node(f"{scope}/mean", "Mean", x)
        centred = node(f"{scope}/sub", "Sub", x, mean)
        var = node(f"{scope}/variance", "Mean", node(f"{scope}/square", "Square", centred))
        eps = node(f"{scope}/epsilon", "Const")
        scale = node(f"{scope}/rsqrt", "Rsqrt", node(f"{scope}/add_eps", "AddV2", var, eps))
        gamma = node(f"{scope}/gamma", "VariableV2")
        beta = node(f"{scope}/beta", "VariableV2")
        return node(f"{scope}/add", "AddV2", node(f"{scope}/mul", "Mul", centred, scale, gamma), beta)

    x = node("input", "Placeholder")
    x = node("model/embedding/lookup", "Gather", node("model/embedding/table", "VariableV2"), x)
    for i in range(blocks):
        block = f"model/block_{i}"
        h = norm(f"{block}/norm1", x)
        q, k, v = (dense(f"{block}/attn/{p}", h) for p in ("query", "key", "value"))
        scores = node(f"{block}/attn/scores", "BatchMatMul", q, k)
        probs = node(f"{block}/attn/softmax", "Softmax", node(f"{block}/attn/scale", "Mul", scores))
        ctx = node(f"{block}/attn/context", "BatchMatMul", probs, v)
        x = node(f"{block}/residual1", "AddV2", x, dense(f"{block}/attn/output", ctx))
        h = norm(f"{block}/norm2", x)
        h = node(f"{block}/mlp/gelu", "Gelu", dense(f"{block}/mlp/fc1", h))
        x = node(f"{block}/residual2", "AddV2", x, dense(f"{block}/mlp/fc2", h))
    node("loss", "Mean", x)
    return graph


def write_logdir(root: Path) -> Path:
    """A logdir with one run whose graph is :func:`big_graph`."""
    from tbkit.writer.summary_writer import SummaryWriter

    with SummaryWriter(str(root / "big")) as writer:
        writer.add_graph(big_graph())
    return root


def measure(browser: Any, workdir: Path) -> dict[str, float]:
    """Open the dashboard on the 2,000-op graph; time page open to drawn, and *Expand all*."""
    from tbkit.plugins.graphs.source import LoadedGraph
    from tbkit.plugins.graphs.view import draw
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    workdir.mkdir(parents=True, exist_ok=True)
    logdir = write_logdir(workdir)
    out: dict[str, float] = {}
    loaded = LoadedGraph.from_graph_def(big_graph())
    for name, expanded in (
        ("collapsed", loaded.graph.default_expanded()),
        ("expanded", loaded.graph.all_scopes()),
    ):
        started = time.perf_counter()
        draw(loaded.graph, expanded)
        out[f"layout_python_{name}"] = time.perf_counter() - started

    handle = start(MultiLogdirProvider([("", str(logdir))]), host="127.0.0.1", port=0, reload_interval=0)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{handle.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the server has read the logdir before timing
            with urllib.request.urlopen(f"{base}/data/reload_state", timeout=30) as resp:
                if not json.load(resp)["loading"]:
                    break
            time.sleep(0.05)
        started = time.perf_counter()
        page.goto(f"{base}/#graphs")
        page.wait_for_selector(
            ".graph-view[data-ready='1'][data-total-ops]", state="attached", timeout=60_000
        )
        out["figure"] = time.perf_counter() - started
        total = page.get_attribute(".graph-view", "data-total-ops")
        started = time.perf_counter()
        page.click("button.expand-all")
        page.wait_for_selector(
            f".graph-view[data-ready='1'][data-ops='{total}']", state="attached", timeout=120_000
        )
        out["expand_all"] = time.perf_counter() - started
        out["zoom_step_expanded"] = page.evaluate(ZOOM_STEPS)
    finally:
        context.close()
        handle.close()
    return out
