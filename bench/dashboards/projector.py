"""Projector dashboard benchmark: a 10,000 × 128 embedding with one metadata column (10 classes).

Figures (seconds):

- ``figure``: page open (``page.goto``) to the PCA view drawn (``.pj-plot[data-ready="1"]``,
  every point, the default 2-D view: an SVG scatter); target 3 s. A fresh browser context and
  a fresh server each time: the tensor file is parsed, PCA computed and plotly.js loaded cold.
- ``figure_3d``: the same with the 3-D view remembered (scatter3d, one WebGL scene).
- ``tsne_2000``: t-SNE (NumPy, exact gradient, 500 iterations, 2-D) on the UI's default random
  sample of 2,000 points, from choosing *t-SNE* to the job done and drawn.
- ``parse_pca_python``: the server's work alone, in this process: parse ``tensors.tsv`` and PCA.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

TARGETS = {"figure": 3.0}
POINTS, DIMS, CLASSES = 10_000, 128, 10
WAIT_MS = 300_000


def write_logdir(root: Path) -> Path:
    """A logdir with one run holding the embedding ``big`` (clustered Gaussian points)."""
    import numpy as np

    from tbkit.writer.summary_writer import SummaryWriter

    rng = np.random.default_rng(0)
    labels = rng.integers(0, CLASSES, POINTS)
    centres = rng.standard_normal((CLASSES, DIMS)) * 2.0
    mat = (centres[labels] + rng.standard_normal((POINTS, DIMS))).astype(np.float32)
    with SummaryWriter(str(root / "run")) as writer:
        writer.add_embedding(mat, metadata=[f"class{c}" for c in labels], tag="big")
    return root


def _open(browser: Any, logdir: Path, dims: int) -> tuple[float, Any, Any, Any]:
    """Start a server, open the Projector in a fresh context; returns (seconds, page, context, server)."""
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    handle = start(MultiLogdirProvider([("", str(logdir))]), host="127.0.0.1", port=0, reload_interval=0)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    base = f"http://127.0.0.1:{handle.port}"
    if dims != 2:  # remember the view before timing, as a returning user has it
        page.goto(f"{base}/data/environment")
        page.evaluate(f"localStorage.setItem('tbkit.projector', JSON.stringify({{dims: {dims}}}))")
    start_time = time.perf_counter()
    page.goto(f"{base}/#projector")
    page.wait_for_selector(f".pj-plot[data-ready='1'][data-points='{POINTS}']", timeout=WAIT_MS)
    return time.perf_counter() - start_time, page, context, handle


def measure(browser: Any, workdir: Path) -> dict[str, float]:
    """Open the dashboard on the embedding in 2-D and 3-D; time a t-SNE on the default sample."""
    from tbkit.plugins.projector import decode, reduce

    logdir = write_logdir(workdir / "logdir")
    out: dict[str, float] = {}
    seconds, page, context, handle = _open(browser, logdir, 2)
    out["figure"] = seconds
    try:
        start_time = time.perf_counter()
        page.select_option(".pj-method", "tsne")
        page.wait_for_selector(".pj-job[data-state='done']", timeout=WAIT_MS)
        page.wait_for_selector(".pj-plot[data-ready='1'][data-method='tsne']", timeout=WAIT_MS)
        out["tsne_2000"] = time.perf_counter() - start_time
    finally:
        context.close()
        handle.close()
    seconds, page, context, handle = _open(browser, logdir, 3)
    out["figure_3d"] = seconds
    context.close()
    handle.close()
    tensors = next(logdir.glob("run/*/big/tensors.tsv")).read_bytes()
    start_time = time.perf_counter()
    reduce.pca(decode.parse_tensors(tensors), 10)
    out["parse_pca_python"] = time.perf_counter() - start_time
    return out
