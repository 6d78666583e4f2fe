"""The Custom Scalars dashboard in a real browser, on the demo logdir's layout."""

from __future__ import annotations

import numpy as np
import pytest

import tbkit
from tests.browser._ui import WAIT_MS, color_pixels, open_dashboard, run_colors, wait_chart

pytestmark = pytest.mark.browser

BAND = ("train/loss_band/lower", "train/loss_band/upper")


def test_layout_charts_lines_and_margin_band(page, serve, demo_logdir):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, "custom_scalars")
    root = page.locator(".dashboard[data-dashboard='custom_scalars']")
    root.and_(page.locator("[data-ready='1']")).wait_for(timeout=WAIT_MS)
    assert root.get_attribute("data-categories") == "1" and root.get_attribute("data-charts") == "2"
    assert page.locator(".custom-category summary span").first.text_content() == "training"
    runs = sorted(run_colors(server.url))
    assert len(runs) == 3

    multiline = page.locator(".custom-chart[data-kind='multiline']")
    state = wait_chart(page, multiline, series=str(3 * len(runs)))  # train/loss.* matches 3 tags per run
    assert multiline.get_attribute("data-lines") == "9" and state["bands"] == "0"

    margin = page.locator(".custom-chart[data-kind='margin']")
    state = wait_chart(page, margin, series=str(len(runs)), bands=str(len(runs)))
    frame = tbkit.read(str(demo_logdir)).scalars()
    band_steps = sorted(set(frame[frame.tag == BAND[0]]["step"]))
    assert int(state["bandPoints"]) == len(runs) * len(band_steps)

    # The tooltip gives each run's value and the band of the nearest band step, as logged.
    box = margin.locator("canvas.chart-overlay").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] / 2)
    page.locator(".tooltip").wait_for(state="visible", timeout=WAIT_MS)
    rows = page.locator(".tooltip tbody tr").evaluate_all("rs => rs.map(r => ({...r.dataset}))")
    assert sorted(r["run"] for r in rows) == runs
    for r in rows:
        step = int(r["step"])
        nearest = min(band_steps, key=lambda s: (abs(s - step), s))
        at = frame[(frame.run == r["run"]) & (frame.step == nearest)]
        assert float(r["lower"]) == pytest.approx(at[at.tag == BAND[0]]["value"].item(), rel=1e-6)
        assert float(r["upper"]) == pytest.approx(at[at.tag == BAND[1]]["value"].item(), rel=1e-6)
        value = frame[(frame.run == r["run"]) & (frame.step == step) & (frame.tag == "train/loss")]
        assert float(r["value"]) == pytest.approx(value["value"].item(), rel=1e-6)

    # Each run's band is painted in its colour at the band's opacity over the card's white.
    page.mouse.move(0, 0)
    png = margin.locator("canvas.chart-canvas").screenshot(animations="disabled")
    for run, rgb in run_colors(server.url).items():
        fill = tuple(int(v) for v in np.round(0.2 * np.array(rgb) + 0.8 * 255))
        assert color_pixels(png, fill, tolerance=8) > 50, run
