"""No element and no URL attribute of the time-series and scalars pages comes from a run or tag name.

Names carry HTML payloads and a marker (``zqx``); after every part of the page that shows
names has rendered (cards, tooltips' run list, the download menus), no element, no attribute
name and no ``href``/``src``/``action`` value holds the marker, raw or URL-decoded. Downloads,
which put names in their query strings, are built when clicked and still work.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

import tbkit
from tests.browser._ui import WAIT_MS, open_dashboard, scalar_card, wait_chart

pytestmark = pytest.mark.browser

MARK = "zqx"
# A run is a directory: no "/" in its name.
RUNS = [f'<a href="javascript:{MARK}1()" onclick="window.__xss=1">{MARK}1', f"javascript:{MARK}2()"]
TAG = f'<a href="javascript:window.__xss=1" onclick="window.__xss=1">{MARK}3</a>'

DOM_CHECK = """(mark) => {
  const found = [];
  const urlAttrs = new Set(["href", "src", "action", "formaction", "srcset", "poster", "xlink:href", "data"]);
  const decoded = (v) => {
    try { return decodeURIComponent(v.replace(/\\+/g, " ")); } catch (_) { return v; }
  };
  for (const e of document.querySelectorAll("*")) {
    if (e.localName.includes(mark)) found.push("element " + e.localName);
    for (const a of e.attributes) {
      if (a.name.includes(mark)) found.push("attribute name " + a.name + " on " + e.localName);
      if (a.name.startsWith("on")) found.push("handler " + a.name + " on " + e.localName);
      if (urlAttrs.has(a.name) && (a.value.includes(mark) || decoded(a.value).includes(mark)))
        found.push(e.localName + "[" + a.name + "] from data: " + a.value.slice(0, 100));
    }
  }
  return {found, xss: typeof window.__xss};
}"""


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markup")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(3):
                w.add_scalar(TAG, float(step + i), step)
    return root


def _assert_no_markup_from_data(page) -> None:
    result = page.evaluate(DOM_CHECK, MARK)
    assert result["xss"] == "undefined"
    assert result["found"] == []


@pytest.mark.parametrize("dashboard", ["timeseries", "scalars"])
def test_no_element_or_url_attribute_comes_from_names(page, serve, logdir, dashboard):
    # Before: the download-all link and each run's CSV/JSON links were <a href> built from
    # the run and tag names, live in the page.
    server = serve(logdir)
    open_dashboard(page, server.url, dashboard)
    card = scalar_card(page, TAG)
    wait_chart(page, card, series=str(len(RUNS)))
    card.locator("details.downloads > summary").click()
    rows = card.locator(".download-row")
    rows.first.wait_for(timeout=WAIT_MS)
    assert sorted(rows.locator(".run-label").all_inner_texts()) == sorted(RUNS)
    page.locator(".download-all").hover()
    _assert_no_markup_from_data(page)

    # The downloads still work: one run's JSON, and the zip of everything visible.
    row = rows.filter(has=page.locator(".run-label", has_text=f"{MARK}1"))
    with page.expect_download(timeout=WAIT_MS) as one:
        row.get_by_text("JSON", exact=True).click()
    assert '"value":0.0' in Path(one.value.path()).read_text()
    with page.expect_download(timeout=WAIT_MS) as everything:
        page.locator(".download-all").click()
    names = zipfile.ZipFile(io.BytesIO(Path(everything.value.path()).read_bytes())).namelist()
    assert len(names) == len(RUNS)
    _assert_no_markup_from_data(page)


HPARAM = f'<a href="https://evil.example/{MARK}4">{MARK}4</a>'
VALUE = f'<a href="https://evil.example/{MARK}5">{MARK}5</a><b>bold</b>'


@pytest.fixture(scope="module")
def hparams_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("markup_hparams")
    for i, value in enumerate([VALUE, "plain"]):
        with tbkit.SummaryWriter(str(root / f"session{i}")) as w:
            w.add_hparams({HPARAM: value, "lr": 0.1 * (i + 1)}, {"m": float(i)})
    return root


def test_plotly_text_from_names_is_text(page, serve, hparams_logdir):
    # Before: plotly read axis titles, tick labels and hover text as its HTML subset, so a
    # hyperparameter named <a href=...> became a live link in the scatter matrix.
    server = serve(hparams_logdir)
    open_dashboard(page, server.url, "hparams")
    page.locator(".parcoords[data-ready='1']").wait_for(timeout=WAIT_MS)
    page.locator(".splom-details summary").click()
    matrix = page.locator(".splom[data-ready='1']")
    matrix.wait_for(timeout=WAIT_MS)
    assert matrix.locator("a").count() == 0 and matrix.locator("b").count() == 0
    shown = matrix.locator("svg text").all_text_contents()
    assert any(f"{MARK}4</a>" in t for t in shown)  # the name is drawn, as its characters
    _assert_no_markup_from_data(page)


IMAGE_TAG = f'<img src="https://evil.example/{MARK}6" onerror="window.__xss=1">'


@pytest.fixture(scope="module")
def media_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import numpy as np

    root = tmp_path_factory.mktemp("markup_media")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(2):
                w.add_histogram(TAG, np.arange(10.0) + i + step, step)
                w.add_image(IMAGE_TAG, np.full((3, 4, 4), 40 * (i + step), np.uint8), step)
    return root


@pytest.mark.parametrize(
    ("dashboard", "ready"),
    [("histograms", ".plot[data-ready='1']"), ("distributions", ".plot[data-ready='1']"), ("images", "img")],
)
def test_no_url_attribute_from_names_on_the_media_dashboards(page, serve, media_logdir, dashboard, ready):
    server = serve(media_logdir)
    open_dashboard(page, server.url, dashboard)
    root = page.locator(f".dashboard[data-dashboard='{dashboard}']")
    root.locator(ready).first.wait_for(timeout=WAIT_MS)
    assert root.locator("a").filter(has_text=MARK).count() == 0
    _assert_no_markup_from_data(page)
