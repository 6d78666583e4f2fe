"""The scalar chart in a real browser: tooltip values, smoothing, run filter, CSV download, pixels."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tests.browser._ui import (
    WAIT_MS,
    chart_state,
    color_pixels,
    open_dashboard,
    png_array,
    run_colors,
    scalar_card,
    wait_chart,
)

pytestmark = pytest.mark.browser

RUNS = {"alpha": 1.0, "beta": 5.0, "gamma": 9.0}  # each run's level: their lines never overlap
STEPS = 60
TAG = "train/loss"


def logged_values(level: float, seed: int) -> np.ndarray:
    """Noisy values that are multiples of 1/8 (exact in float32 and in 5 significant digits)."""
    rng = np.random.default_rng(seed)
    return np.round((level + rng.normal(0, 0.6, STEPS)) * 8) / 8


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scalars")
    for i, (run, level) in enumerate(RUNS.items()):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step, value in enumerate(logged_values(level, i)):
                w.add_scalar(TAG, float(value), step * 10)
    return root


def set_smoothing(page, value: float) -> None:
    """Move the smoothing slider to ``value`` (fires input and change, as a user would)."""
    page.locator("input.smoothing").fill(str(value))


def _canvas_png(card) -> bytes:
    return card.locator("canvas.chart-canvas").screenshot(animations="disabled")


def test_tooltip_shows_logged_value(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series=str(len(RUNS)))
    overlay = card.locator("canvas.chart-overlay")
    box = overlay.bounding_box()
    assert box is not None
    expected = {run: logged_values(level, i) for i, (run, level) in enumerate(RUNS.items())}
    checked = 0
    for frac in (0.3, 0.55, 0.8):
        page.mouse.move(box["x"] + box["width"] * frac, box["y"] + box["height"] / 2)
        tooltip = page.locator(".tooltip")
        tooltip.wait_for(state="visible", timeout=WAIT_MS)
        table = tooltip.evaluate(
            """t => ({head: Array.from(t.querySelectorAll('th'), c => c.textContent),
                      rows: Array.from(t.querySelectorAll('tr')).slice(1)
                              .map(r => Array.from(r.children, c => c.textContent))})"""
        )
        col = {name: i for i, name in enumerate(table["head"])}
        assert {"Run", "Value", "Step"} <= set(col), table["head"]
        rows = {r[col["Run"]]: r for r in table["rows"]}
        assert set(rows) == set(RUNS)
        for run, row in rows.items():
            step = int(row[col["Step"]].replace(",", ""))
            assert step % 10 == 0
            assert float(row[col["Value"]]) == expected[run][step // 10], (run, step, row)
            checked += 1
    assert checked == 3 * len(RUNS)


def test_smoothing_changes_the_drawn_line(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series=str(len(RUNS)))
    assert float(page.locator("input.smoothing").input_value()) == 0.6  # TensorBoard's default
    before = png_array(_canvas_png(card))
    set_smoothing(page, 0.95)
    deadline = time.monotonic() + WAIT_MS / 1000
    changed = 0
    while changed < 200 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        after = png_array(_canvas_png(card))
        changed = int((np.abs(after - before).sum(axis=-1) > 30).sum())
    assert changed >= 200, f"only {changed} pixels changed after smoothing 0.6 -> 0.95"
    assert chart_state(card)["series"] == str(len(RUNS))


def test_run_filter_hides_runs(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="3")
    page.locator(".run-filter").fill("^(alpha|gamma)$")
    assert wait_chart(page, card, series="2")["series"] == "2"
    assert page.locator(".run-list .run-item").count() == 2
    page.locator(".run-filter").fill("beta")
    assert wait_chart(page, card, series="1")["series"] == "1"


def test_csv_download_equals_reader(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="3")
    card.locator("details.downloads > summary").click()
    row = card.locator(".download-row").filter(has=page.locator(".run-label", has_text="beta"))
    with page.expect_download(timeout=WAIT_MS) as info:
        row.get_by_text("CSV", exact=True).click()
    path = info.value.path()
    got = pd.read_csv(io.StringIO(Path(path).read_text()))
    frame = tbkit.read(str(logdir)).scalars()
    want = frame[(frame["run"] == "beta") & (frame["tag"] == TAG)].reset_index(drop=True)
    assert list(got.columns) == ["step", "wall_time", "value"]
    assert len(got) == len(want) == STEPS
    np.testing.assert_array_equal(got["step"].to_numpy(), want["step"].to_numpy())
    np.testing.assert_array_equal(got["value"].to_numpy(), want["value"].to_numpy())
    np.testing.assert_allclose(got["wall_time"].to_numpy(), want["wall_time"].to_numpy(), rtol=0, atol=1e-6)


def test_chart_pixels_carry_each_run_colour(page, serve, logdir):
    server = serve(logdir)
    colors = run_colors(server.url)
    assert set(colors) == set(RUNS)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="3")
    png = _canvas_png(card)
    counts = {run: color_pixels(png, rgb) for run, rgb in colors.items()}
    assert all(n >= 50 for n in counts.values()), counts
    # A run switched off leaves no line of its colour behind.
    page.locator(".run-list .run-item[data-run='gamma'] input[type=checkbox]").uncheck()
    wait_chart(page, card, series="2")
    assert color_pixels(_canvas_png(card), colors["gamma"]) < 5


def test_samples_per_plugin_scalars_sets_the_points_drawn(page, serve, logdir):
    server = serve(logdir, samples_per_plugin={"scalars": 10})
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/data/plugin/scalars/scalars" in r.url else None)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    state = wait_chart(page, card, series=str(len(RUNS)), total=str(len(RUNS) * STEPS))
    assert 0 < int(state["shown"]) <= 10 * len(RUNS)  # at most 10 of each run's 60 points
    assert card.locator(".chart-note").inner_text() == f"{state['shown']} of {len(RUNS) * STEPS} points"
    assert asked and not any("points=" in u for u in asked)  # the server's number, not the page's
