"""Card tools in a real browser: maximise and restore, the values table, PNG and SVG export."""

from __future__ import annotations

import io
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import tbkit
from tests.browser._ui import (
    WAIT_MS,
    get_json,
    open_dashboard,
    scalar_card,
    wait_chart,
    wait_loaded,
    wait_plot,
)

pytestmark = pytest.mark.browser

TAG = "loss/train"
HIST_TAG = "weights/w"
STEPS = [0, 10, 20, 30, 40]
# Multiples of 1/8: exact in float32 and in the table's 5 significant digits.
VALUES = {"alpha": [1.0, 0.5, 0.25, 2.0, 1.5], "beta": [3.0, 2.5, 4.0, 3.5, 0.75]}
WALL_STEP = 1.5  # seconds of wall time per step
SVG_NS = "{http://www.w3.org/2000/svg}"
BASE_WALL = float(round(time.time()) + 60)  # the first point's wall time


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cardtools")
    for i, (run, values) in enumerate(VALUES.items()):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step, value in zip(STEPS, values, strict=True):
                w.add_scalar(TAG, value, step, walltime=BASE_WALL + step * WALL_STEP)
            w.add_histogram(HIST_TAG, np.arange(10.0) + i, 0)
    return root


def debiased_ema(values: list[float], weight: float) -> list[float]:
    """TensorBoard's smoothing (DESIGN.md §4), computed here from the values written."""
    out, last = [], 0.0
    for n, v in enumerate(values, start=1):
        last = last * weight + (1 - weight) * v
        out.append(last / (1 - weight**n))
    return out


def seconds(text: str) -> float:
    """The table's relative time ("15 s", "1.5 min", "2 h", "1 d") in seconds."""
    number, unit = text.split()
    return float(number) * {"s": 1, "min": 60, "h": 3600, "d": 86400}[unit]


def table_rows(card) -> dict[str, dict[str, str]]:
    """The values table of a card as {run: {column: text}}."""
    table = card.locator(".value-table").evaluate(
        """t => ({head: Array.from(t.querySelectorAll('th'), c => c.textContent),
                  rows: Array.from(t.querySelectorAll('tbody tr'),
                                   r => Array.from(r.children, c => c.textContent))})"""
    )
    return {row[0]: dict(zip(table["head"], row, strict=True)) for row in table["rows"]}


def test_maximise_and_restore(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="2")
    before = card.bounding_box()
    chart_before = card.locator(".chart").bounding_box()
    main = page.locator("#main").bounding_box()
    assert before and chart_before and main
    assert before["width"] < main["width"] / 2  # a card of the grid

    button = card.locator("button.maximize")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    page.wait_for_function("c => c.classList.contains('maximized')", arg=card.element_handle())
    big = card.bounding_box()
    assert big is not None
    for k in ("x", "y", "width", "height"):
        assert abs(big[k] - main[k]) <= 1, (k, big, main)
    # The chart fills the card, and is drawn again at its new size.
    page.wait_for_function(
        "([c, h]) => c.clientHeight > 1.5 * h && c.querySelector('canvas').height >= c.clientHeight",
        arg=[card.locator(".chart").element_handle(), chart_before["height"]],
        timeout=WAIT_MS,
    )

    page.keyboard.press("Escape")
    page.wait_for_function("c => !c.classList.contains('maximized')", arg=card.element_handle())
    assert button.get_attribute("aria-pressed") == "false"
    after = card.bounding_box()
    assert after is not None and abs(after["width"] - before["width"]) <= 1
    assert abs(card.locator(".chart").bounding_box()["height"] - chart_before["height"]) <= 1

    # The button restores too; a histogram card maximises the same way.
    button.click()
    page.wait_for_function("c => c.classList.contains('maximized')", arg=card.element_handle())
    button.click()
    page.wait_for_function("c => !c.classList.contains('maximized')", arg=card.element_handle())
    hist = page.locator(".histograms-card").filter(has=page.locator(".card-title", has_text=HIST_TAG))
    hist.scroll_into_view_if_needed(timeout=WAIT_MS)
    hist.locator("button.maximize").click()
    page.wait_for_function("c => c.classList.contains('maximized')", arg=hist.element_handle())
    assert abs(hist.bounding_box()["width"] - main["width"]) <= 1
    page.keyboard.press("Escape")
    page.wait_for_function("c => !c.classList.contains('maximized')", arg=hist.element_handle())


def test_values_table_at_the_pointer_and_at_the_last_step(page, serve, logdir):
    server = serve(logdir)
    wait_loaded(server.url)
    start = {r["name"]: r["start_time"] for r in get_json(server.url, "data/runs")}
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="2")
    table = card.locator(".value-table")
    assert table.is_hidden()
    card.locator("button.table-toggle").click()
    table.wait_for(state="visible", timeout=WAIT_MS)

    def check(rows: dict[str, dict[str, str]], step: int) -> None:
        assert set(rows) == set(VALUES)
        i = STEPS.index(step)
        for run, row in rows.items():
            assert int(row["Step"]) == step, (run, row)
            assert float(row["Value"]) == VALUES[run][i], (run, row)
            smoothed = debiased_ema(VALUES[run], 0.6)[i]
            assert float(row["Smoothed"]) == pytest.approx(smoothed, rel=1e-4), (run, row)
            wall = BASE_WALL + step * WALL_STEP
            relative = wall - start[run]
            assert seconds(row["Relative"]) == pytest.approx(relative, rel=1e-3, abs=0.01), (run, row)
            shown = page.evaluate("s => new Date(s * 1000).toLocaleString([], {hour12: false})", wall)
            assert row["Wall time"] == shown

    # The pointer away: each run's last point.
    assert table.get_attribute("data-at") == "last"
    check(table_rows(card), STEPS[-1])
    # At the pointer: the step nearest to it, the same for both runs (they share their steps).
    box = card.locator("canvas.chart-overlay").bounding_box()
    assert box is not None
    seen = set()
    for frac in (0.3, 0.5, 0.7):
        page.mouse.move(box["x"] + box["width"] * frac, box["y"] + box["height"] / 2)
        page.wait_for_function("t => t.dataset.at === 'pointer'", arg=table.element_handle(), timeout=WAIT_MS)
        rows = table_rows(card)
        step = int(next(iter(rows.values()))["Step"])
        check(rows, step)
        seen.add(step)
    assert len(seen) >= 2 and STEPS[-1] not in seen
    page.mouse.move(0, 0)
    page.wait_for_function("t => t.dataset.at === 'last'", arg=table.element_handle(), timeout=WAIT_MS)
    check(table_rows(card), STEPS[-1])


def _download(page, card, button: str):
    card.locator("details.downloads > summary").click()
    with page.expect_download(timeout=WAIT_MS) as info:
        card.locator(button).click()
    download = info.value
    data = Path(download.path()).read_bytes()
    card.locator("details.downloads > summary").click()
    return download.suggested_filename, data


def test_png_and_svg_export(page, serve, logdir):
    server = serve(logdir)
    wait_loaded(server.url)
    colors = {r["name"]: r["color"].lower() for r in get_json(server.url, "data/runs")}
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="2")

    name, png = _download(page, card, "button.export-png")
    assert name == "loss_train.png"
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.load()
    chart = card.locator(".chart").bounding_box()
    assert image.width >= chart["width"] and image.height > chart["height"]
    # The lines are in it, in the runs' colours.
    rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    for color in colors.values():
        want = np.array([int(color[k : k + 2], 16) for k in (1, 3, 5)], dtype=np.int16)
        assert (np.abs(rgb - want) <= 12).all(axis=-1).sum() > 20, color

    name, svg = _download(page, card, "button.export-svg")
    assert name == "loss_train.svg"
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    paths = root.findall(f".//{SVG_NS}path")
    assert len(paths) == len(VALUES)
    assert sorted(p.findtext(SVG_NS + "title") for p in paths) == sorted(VALUES)
    assert {p.get("stroke").lower() for p in paths} == set(colors.values())
    for p in paths:  # every point of the line, in view
        assert len(re.findall(r"[ML]", p.get("d"))) == len(STEPS)
    texts = [t.text for t in root.iter(SVG_NS + "text")]
    assert TAG in texts and set(VALUES) <= set(texts)
    legend = root.find(f".//{SVG_NS}g[@class='legend']")
    assert legend is not None and len(legend.findall(SVG_NS + "rect")) == len(VALUES)


def test_a_plotly_card_maximises_and_its_figure_follows(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "histograms")
    card = page.locator(".card[data-run='alpha']")
    wait_plot(page, card)
    svg = card.locator(".plot svg.main-svg").first
    before = svg.bounding_box()
    assert before is not None
    card.locator("button.maximize").click()
    page.wait_for_function(
        "([s, h]) => s.getBoundingClientRect().height > 1.5 * h",
        arg=[svg.element_handle(), before["height"]],
        timeout=WAIT_MS,
    )
    page.keyboard.press("Escape")
    page.wait_for_function(
        "([s, h]) => Math.abs(s.getBoundingClientRect().height - h) <= 1",
        arg=[svg.element_handle(), before["height"]],
        timeout=WAIT_MS,
    )


XSS_TAG = '<img src=x onerror="window.__xss=1">zqx/<svg onload="window.__xss=2">'
XSS_RUN = '<b onmouseover="window.__xss=3">zqx'  # a directory: no "/"


@pytest.fixture(scope="module")
def hostile_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cardtools-xss")
    with tbkit.SummaryWriter(str(root / XSS_RUN)) as w:
        for step in STEPS:
            w.add_scalar(XSS_TAG, float(step), step)
    return root


def test_names_stay_text_in_the_table_and_the_files(page, serve, hostile_logdir):
    server = serve(hostile_logdir)
    open_dashboard(page, server.url, "timeseries")
    card = scalar_card(page, XSS_TAG)
    wait_chart(page, card, series="1")
    card.locator("button.table-toggle").click()
    assert list(table_rows(card)) == [XSS_RUN]
    name, _ = _download(page, card, "button.export-png")
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.png", name)
    name, svg = _download(page, card, "button.export-svg")
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.svg", name)
    root = ET.fromstring(svg)
    tags = {e.tag for e in root.iter()}
    assert tags <= {
        SVG_NS + t for t in ("svg", "rect", "text", "defs", "clipPath", "g", "line", "path", "title")
    }
    assert not [a for e in root.iter() for a in e.attrib if a.startswith("on")]
    texts = [t.text for t in root.iter(SVG_NS + "text")]
    assert XSS_TAG in texts and XSS_RUN in texts
    # Nothing of the page came from the names either.
    assert page.evaluate("() => typeof window.__xss") == "undefined"
    assert page.locator("img[src='x'], .card b").count() == 0
