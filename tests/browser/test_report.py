"""``tbkit report`` in headless Chromium with the network blocked: every chart drawn, in each run's colour.

It lives here, not in tests/cli/, to share this directory's session-wide browser (Playwright's
sync API allows one per session).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli._logdirs import run_tbkit, write_rich_logdir

pytestmark = pytest.mark.browser

WAIT_MS = 30_000

_COLOR_PIXELS = """([canvas, hex]) => {
  const ctx = canvas.getContext("2d");
  const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < img.length; i += 4) {
    if (img[i + 3] > 200 && want.every((c, k) => Math.abs(img[i + k] - c) <= 6)) n++;
  }
  return n;
}"""


def _charts(page: Any) -> list[dict[str, str]]:
    states = []
    for i in range(page.locator(".chart").count()):
        chart = page.locator(".chart").nth(i)
        chart.scroll_into_view_if_needed()
        page.wait_for_function("el => el.dataset.ready === '1'", arg=chart.element_handle(), timeout=WAIT_MS)
        states.append(chart.evaluate("el => ({...el.dataset})"))
    return states


def _wait_series(page: Any, card: Any, count: str) -> None:
    chart = card.locator(".chart").element_handle()
    page.wait_for_function("([el, n]) => el.dataset.series === n", arg=[chart, count], timeout=WAIT_MS)


def _pixels(page: Any, card: Any, color: str) -> int:
    card.scroll_into_view_if_needed()
    canvas = card.locator("canvas.chart-canvas").element_handle()
    return int(page.evaluate(_COLOR_PIXELS, [canvas, color]))


def test_report_draws_every_chart_offline(page: Any, tmp_path: Path) -> None:
    rich_logdir = write_rich_logdir(tmp_path / "logdir")
    out = tmp_path / "report.html"
    result = run_tbkit("report", "--logdir", str(rich_logdir), "-o", str(out))
    assert result.returncode == 0, result.stderr
    page.set_content(out.read_text(encoding="utf-8"), wait_until="load")  # no server: the page alone
    data = page.evaluate("JSON.parse(document.getElementById('tbkit-report-data').textContent)")
    tags = [t["tag"] for t in data["scalars"]]
    assert page.locator(".scalar-card").count() == len(tags) == 4
    states = _charts(page)
    for entry, state in zip(data["scalars"], states, strict=True):
        assert int(state["series"]) == len(entry["series"]) == 2
        assert int(state["points"]) > 0
    loss = page.locator('.scalar-card[data-tag="loss"]')
    colors = {r["name"]: r["color"] for r in data["runs"]}
    for color in colors.values():
        assert _pixels(page, loss, color) > 20  # each run's line, in its colour

    # The legend hides a run: its colour leaves the chart.
    train = page.locator('.run-item[data-run="train"] input')
    train.uncheck()
    loss.scroll_into_view_if_needed()  # charts redraw when on screen
    _wait_series(page, loss, "1")
    assert _pixels(page, loss, colors["train"]) == 0
    train.check()

    # Smoothing off: lines are the raw values; the chart redraws with both runs again.
    slider = page.locator("input.smoothing")
    slider.evaluate("(el) => { el.value = '0'; el.dispatchEvent(new Event('input')); }")
    loss.scroll_into_view_if_needed()
    _wait_series(page, loss, "2")
    assert _pixels(page, loss, colors["train"]) > 20

    # Images decode from their data: URIs; sanitized text shows, nothing ran.
    images = page.locator("#images img")
    assert images.count() == 2
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        assert images.nth(i).evaluate("img => img.complete && img.naturalWidth") == 12
    assert page.locator("#text .text-html strong").count() == 2
    assert page.evaluate("typeof window.alerted") == "undefined"
