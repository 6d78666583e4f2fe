"""``tbkit report`` printed: every chart is drawn (off screen ones too) and the run swatches keep
their colours, checked on the canvases and inside the PDF Chromium prints (``page.pdf()``)."""

from __future__ import annotations

import re
import zlib
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.cli.report import build_report
from tests.browser._ui import WAIT_MS, png_array

pytestmark = pytest.mark.browser

TAGS = [f"metrics/tag{i:02d}" for i in range(12)]  # 4 rows of cards: most are off screen
RUNS = ("train", "eval")
# Idle-time drawing off, so that only printing can draw the charts off screen.
NO_IDLE = "window.requestIdleCallback = () => 0; 0"

# Pixels of the canvas whose colour is one of `hexes` (within 6 per channel, opaque).
_CANVAS_COLORS = """([canvas, hexes]) => {
  const img = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const wants = hexes.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
  return wants.map((want) => {
    let n = 0;
    for (let i = 0; i < img.length; i += 4) {
      if (img[i + 3] > 200 && want.every((c, k) => Math.abs(img[i + k] - c) <= 6)) n++;
    }
    return n;
  });
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str]]:
    root = tmp_path_factory.mktemp("report_print")
    for k, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for t, tag in enumerate(TAGS):
                for step in range(40):
                    w.add_scalar(tag, np.sin(step / (t + 2)) + k, step)
    html, counts = build_report(tbkit.read(str(root)), title="printed")
    assert counts["charts"] == len(TAGS)
    data = re.search(r'id="tbkit-report-data"[^>]*>(.*?)</script>', html, re.S)
    assert data is not None
    colors = dict(re.findall(r'"name":"([^"]+)","color":"(#[0-9a-f]{6})"', data.group(1)))
    assert sorted(colors) == sorted(RUNS)
    return html, colors


def _ready(page: Any) -> list[str]:
    return page.eval_on_selector_all(".chart", "cs => cs.map(c => c.dataset.ready)")


def _canvas_colors(page: Any, colors: dict[str, str]) -> list[list[int]]:
    """Per chart, the count of pixels in each run's colour (read from the canvas, not the screen)."""
    canvases = page.locator("canvas.chart-canvas")
    return [
        page.evaluate(_CANVAS_COLORS, [canvases.nth(i).element_handle(), list(colors.values())])
        for i in range(canvases.count())
    ]


def _pdf_objects(pdf: bytes) -> list[tuple[bytes, bytes]]:
    """Each indirect object's dictionary text and its decoded stream (b"" when none)."""
    starts = list(re.finditer(rb"(?m)^\d+ 0 obj", pdf))
    out = []
    for i, m in enumerate(starts):
        body = pdf[m.end() : starts[i + 1].start() if i + 1 < len(starts) else len(pdf)]
        k = body.find(b"stream")
        if k < 0:
            out.append((body, b""))
            continue
        head = body[:k]
        length = re.search(rb"/Length (\d+)", head)
        assert length is not None
        raw = body[k + 6 :].lstrip(b"\r")[1:][: int(length.group(1))]
        out.append((head, zlib.decompress(raw) if b"/FlateDecode" in head else raw))
    return out


def _pdf_charts(pdf: bytes) -> list[np.ndarray]:
    """The PDF's RGB images with an alpha mask (how Chromium prints a canvas), as RGBA arrays."""
    objects = _pdf_objects(pdf)
    by_number = {}
    for m, obj in zip(re.finditer(rb"(?m)^(\d+) 0 obj", pdf), objects, strict=True):
        by_number[int(m.group(1))] = obj
    images = []
    for head, data in objects:
        mask = re.search(rb"/SMask (\d+) 0 R", head)
        if b"/Subtype /Image" not in head or mask is None or b"/BitsPerComponent 8" not in head:
            continue
        w = int(re.search(rb"/Width (\d+)", head).group(1))  # type: ignore[union-attr]
        h = int(re.search(rb"/Height (\d+)", head).group(1))  # type: ignore[union-attr]
        alpha = np.frombuffer(by_number[int(mask.group(1))][1], dtype=np.uint8).reshape(h, w, 1)
        rgb = np.frombuffer(data, dtype=np.uint8).reshape(h, w, 3)
        images.append(np.concatenate([rgb, alpha], axis=2))
    return images


def _pixels_of(rgba: np.ndarray, color: str, tolerance: int = 8) -> int:
    want = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
    near = (np.abs(rgba[..., :3].astype(np.int16) - want) <= tolerance).all(axis=-1)
    return int((near & (rgba[..., 3] > 200)).sum())


def _fills(pdf: bytes) -> set[tuple[int, int, int]]:
    """The colours the PDF's page contents fill with (``r g b rg`` operators), as 0–255 RGB."""
    found = set()
    for _, data in _pdf_objects(pdf):
        for m in re.finditer(rb"([\d.]+) ([\d.]+) ([\d.]+) rg\b", data):
            found.add(tuple(round(float(v) * 255) for v in m.groups()))
    return found


def _check_pdf(pdf: bytes, colors: dict[str, str]) -> None:
    assert pdf.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type /Page\b", pdf))
    assert pages >= 2  # 12 cards do not fit one page
    charts = _pdf_charts(pdf)
    assert len(charts) == len(TAGS)  # a blank canvas prints no image at all
    for chart in charts:
        for run, color in colors.items():
            assert _pixels_of(chart, color) > 20, run  # every run's line is in every chart
    fills = _fills(pdf)
    for run, color in colors.items():  # the legend's swatches: filled in the run's colour
        want = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
        assert any(np.abs(np.array(f) - want).max() <= 2 for f in fills), run


def test_print_media_draws_every_chart_and_the_pdf_holds_them(page: Any, report: Any) -> None:
    html, colors = report
    page.evaluate(NO_IDLE)  # document.write keeps the window: the stub stays for the report's script
    page.set_content(html, wait_until="load")
    page.wait_for_function("() => document.querySelectorAll('.chart[data-ready=\"1\"]').length > 0")
    before = _ready(page)
    assert len(before) == len(TAGS) and "0" in before  # the charts off screen are not drawn yet

    page.emulate_media(media="print")
    page.wait_for_function(
        "n => document.querySelectorAll('.chart[data-ready=\"1\"]').length === n",
        arg=len(TAGS),
        timeout=WAIT_MS,
    )
    for counts in _canvas_colors(page, colors):
        assert min(counts) > 20  # both runs' lines, on every canvas
    styles = page.eval_on_selector_all(
        ".run-item .swatch", "ss => ss.map(s => [getComputedStyle(s).printColorAdjust, s.offsetWidth])"
    )
    assert styles and all(adjust == "exact" and width > 0 for adjust, width in styles)
    _check_pdf(page.pdf(format="A4"), colors)


def test_beforeprint_draws_every_chart(page: Any, report: Any) -> None:
    html, colors = report
    page.evaluate(NO_IDLE)
    page.set_content(html, wait_until="load")
    page.wait_for_function("() => document.querySelectorAll('.chart[data-ready=\"1\"]').length > 0")
    assert "0" in _ready(page)
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # what Ctrl+P sends first
    assert _ready(page) == ["1"] * len(TAGS)  # drawn at once, in the handler
    for counts in _canvas_colors(page, colors):
        assert min(counts) > 20


def test_idle_drawing_prepares_a_direct_pdf_and_a_full_page_capture(page: Any, report: Any) -> None:
    html, colors = report
    page.set_content(html, wait_until="load")
    page.wait_for_function(
        "() => { const d = document.body.dataset; return d.charts && d.chartsDrawn === d.charts; }",
        timeout=WAIT_MS,
    )
    assert page.evaluate("document.body.dataset.charts") == str(len(TAGS))
    shot = png_array(page.screenshot(full_page=True))
    boxes = page.eval_on_selector_all(
        "canvas.chart-canvas",
        "cs => cs.map(c => { const r = c.getBoundingClientRect();"
        " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })",
    )
    assert len(boxes) == len(TAGS)
    for x, y, w, h in boxes:  # every chart, on screen or not, shows both runs in the capture
        crop = shot[int(y) : int(y + h), int(x) : int(x + w)]
        rgba = np.concatenate([crop, np.full((*crop.shape[:2], 1), 255, dtype=crop.dtype)], axis=2)
        for run, color in colors.items():
            assert _pixels_of(rgba, color) > 20, (run, y)
    _check_pdf(page.pdf(format="A4"), colors)  # no print media emulated first: page.pdf() alone
