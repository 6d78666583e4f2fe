"""Every dashboard opens on tbkit's demo logdir without errors; image cards show images at their size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbkit
from tests.browser._ui import WAIT_MS, get_json, open_dashboard, wait_loaded

pytestmark = pytest.mark.browser

# Per dashboard: an element inside it that exists only once its data are shown.
CONTENT = {
    "timeseries": ".scalar-card .chart[data-ready='1']",
    "scalars": ".scalar-card .chart[data-ready='1']",
    "histograms": ".plot[data-ready='1']",
    "distributions": ".plot[data-ready='1']",
    "images": "img",
    "audio": "[data-ready='1'] audio",
    "text": "[data-ready='1'] .text-html strong",  # the demo's notes are Markdown with **step**
    "projector": ".pj-plot[data-ready='1'][data-points='300']",
}
AUDIO_SECONDS = 1.0  # the demo's clips: 8,000 samples at 8 kHz
LOAD_AUDIO = """async el => {
  el.preload = "auto";
  const done = new Promise((resolve, reject) => {
    el.addEventListener("loadedmetadata", () => resolve(el.duration));
    el.addEventListener("error", () => reject(new Error("audio error " + (el.error && el.error.code))));
  });
  el.load();
  return await done;
}"""


@pytest.mark.parametrize("name", list(CONTENT))
def test_dashboard_opens_without_errors(page, serve, demo_logdir, page_problems, name):
    server = serve(demo_logdir)
    open_dashboard(page, server.url, name)
    tab = page.locator(f"#tabs a.tab[data-dashboard='{name}']")
    tab.wait_for(timeout=WAIT_MS)
    root = page.locator(f".dashboard[data-dashboard='{name}']")
    root.wait_for(timeout=WAIT_MS)
    content = root.locator(CONTENT[name]).first
    content.wait_for(state="attached", timeout=WAIT_MS)
    assert "active" in (tab.get_attribute("class") or "")
    assert root.locator(".error").count() == 0
    if name == "images":
        page.wait_for_function(
            "el => el.complete && el.naturalWidth > 0", arg=content.element_handle(), timeout=WAIT_MS
        )
    if name == "audio":  # the clip is served and decodes to its logged length
        assert content.evaluate(LOAD_AUDIO) == pytest.approx(AUDIO_SECONDS, abs=0.01)
    page_problems.check()


IMAGES = {"shapes/wide": (23, 37), "shapes/tall": (50, 10)}  # tag -> (height, width)


@pytest.fixture(scope="module")
def image_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(str(root / "run")) as w:
        for tag, (h, w_) in IMAGES.items():
            for step in range(3):
                w.add_image(tag, rng.random((h, w_, 3)), step, dataformats="HWC")
    return root


@pytest.mark.parametrize("dashboard", ["timeseries", "images"])
def test_image_card_shows_logged_size(page, serve, image_logdir, dashboard):
    server = serve(image_logdir)
    open_dashboard(page, server.url, dashboard)
    root = page.locator(f".dashboard[data-dashboard='{dashboard}']")
    root.wait_for(timeout=WAIT_MS)
    for tag, (height, width) in IMAGES.items():
        card = root.locator(".card").filter(has=page.locator(".card-title", has_text=tag))
        card.first.scroll_into_view_if_needed(timeout=WAIT_MS)
        img = card.first.locator("img").first
        img.wait_for(state="attached", timeout=WAIT_MS)
        loaded = "el => el.complete && el.naturalWidth > 0"
        page.wait_for_function(loaded, arg=img.element_handle(), timeout=WAIT_MS)
        size = img.evaluate("el => [el.naturalWidth, el.naturalHeight]")
        assert size == [width, height], tag


def test_tabs_that_do_not_fit_go_into_the_more_menu(page, serve, demo_logdir):
    server = serve(demo_logdir)
    wait_loaded(server.url)  # the listing is complete once the first load is done
    listing = get_json(server.url, "data/plugins_listing")
    names = [n for n, v in listing.items() if v["enabled"] and v["script"]]
    last = names[-1]
    open_dashboard(page, server.url, last)
    page.locator(f".dashboard[data-dashboard='{last}']").wait_for(timeout=WAIT_MS)
    active = page.locator(f"#tabs a.tab.active[data-dashboard='{last}']")
    assert active.is_visible()
    nav = page.locator("#tabs")
    assert nav.evaluate("el => el.scrollWidth <= el.clientWidth")  # nothing hidden off the strip
    shown = nav.locator("a.tab").evaluate_all("els => els.map(e => e.dataset.dashboard)")
    menu = nav.locator("select.tab-more")
    in_menu = menu.locator("option[data-dashboard]").evaluate_all("els => els.map(e => e.value)")
    assert in_menu, "with every dashboard of the demo, 1280 px cannot hold every tab"
    assert sorted(shown + in_menu) == sorted(set(names) | {"timeseries"})
    menu.select_option(in_menu[0])
    page.locator(f".dashboard[data-dashboard='{in_menu[0]}']").wait_for(timeout=WAIT_MS)
    assert page.locator(f"#tabs a.tab.active[data-dashboard='{in_menu[0]}']").is_visible()
