"""The PR Curves dashboard in a real browser: one curve per run and tag, the step slider, the tooltip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.browser._ui import WAIT_MS, get_json, open_dashboard, wait_plot

pytestmark = pytest.mark.browser

DEMO_RUNS = ("lr_0.1", "lr_0.03", "lr_0.01")
TORCH_STEPS = (0, 4, 8)
HOVER_FIRST_POINT = "el => { window.Plotly.Fx.hover(el, [{curveNumber: 0, pointNumber: 0}]); }"


def cards(page):
    return page.locator(".dashboard[data-dashboard='pr_curves'] .pr-curve-card")


def plot_state(card) -> dict[str, str]:
    return card.locator(".plot").evaluate("el => Object.assign({}, el.dataset)")


def test_demo_curves_slider_and_tooltip(page, serve, demo_logdir, page_problems):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "pr_curves")
    cards(page).first.wait_for(timeout=WAIT_MS)
    assert cards(page).count() == len(DEMO_RUNS)
    for run in DEMO_RUNS:
        card = page.locator(f".pr-curve-card[data-run='{run}'][data-tag='pr/cat']")
        curves = get_json(server.url, "data/plugin/pr_curves/pr_curves", run=run, tag="pr/cat")
        assert [c["step"] for c in curves] == [0, 59]
        state = wait_plot(page, card, step="59")
        assert state["curves"] == "1" and state["steps"] == "2"
        assert state["points"] == str(len(curves[-1]["recall"]))
        assert card.locator("path.js-line").count() == 1  # SVG scatter, not WebGL

        card.locator("input.pr-step").fill("0")  # the slider picks the first step
        state = wait_plot(page, card, step="0")
        assert state["points"] == str(len(curves[0]["recall"]))
        assert "step 0 (1/2)" in card.locator(".step-label").inner_text()

    card = cards(page).first
    card.locator(".plot").evaluate(HOVER_FIRST_POINT)
    tip = card.locator(".hovertext").first
    tip.wait_for(timeout=WAIT_MS)
    text = tip.text_content()
    run = card.get_attribute("data-run")
    point = get_json(server.url, "data/plugin/pr_curves/pr_curves", run=run, tag="pr/cat")[0]  # step 0
    assert "threshold 0.000" in text
    for name in ("tp", "fp", "tn", "fn"):
        assert f"{name.upper()} {point[name][0]}" in text
    page_problems.check()


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PR curves written by torch.utils.tensorboard: 3 steps of tag ``torch/pr``, 51 thresholds."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("torch_pr")
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 200)
    writer = TorchWriter(str(root / "torch_run"))
    for step in TORCH_STEPS:
        scores = np.clip(labels * (0.2 + step / 10) + rng.random(200) * 0.6, 0, 1)
        writer.add_pr_curve("torch/pr", labels, scores, step, num_thresholds=51)
    writer.close()
    return root


def test_torch_curves_and_slider(page, serve, torch_logdir, page_problems):
    server = serve(torch_logdir)
    open_dashboard(page, server.url, "pr_curves")
    card = page.locator(".pr-curve-card[data-run='torch_run'][data-tag='torch/pr']")
    card.wait_for(timeout=WAIT_MS)
    curves = get_json(server.url, "data/plugin/pr_curves/pr_curves", run="torch_run", tag="torch/pr")
    assert [c["step"] for c in curves] == list(TORCH_STEPS)
    state = wait_plot(page, card, step=str(TORCH_STEPS[-1]))
    assert state["steps"] == "3" and state["curves"] == "1"
    assert state["points"] == str(len(curves[-1]["recall"]))
    for index, step in enumerate(TORCH_STEPS):
        card.locator("input.pr-step").fill(str(index))
        state = wait_plot(page, card, step=str(step))
        assert state["points"] == str(len(curves[index]["recall"]))
        drawn = card.locator(".plot").evaluate("el => el.data[0].x.length")
        assert drawn == len(curves[index]["recall"])
    page_problems.check()
