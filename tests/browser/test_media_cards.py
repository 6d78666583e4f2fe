"""Rough edges of the media cards and the tooltip, in a real browser: audio players show their
length before playing, image step labels stay inside their card, the tooltip hides when the
layout changes under the pointer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tests.browser._ui import WAIT_MS, open_dashboard, scalar_card, wait_chart

pytestmark = pytest.mark.browser

HUGE_STEPS = (7, 1_234_567_890_123_456)  # a step label far wider than a narrow image card
LONG_RUN = "a_run_with_a_rather_long_name_that_cannot_fit_anywhere_" + "x" * 40


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("media_cards")
    rng = np.random.default_rng(0)
    for run in ("short", LONG_RUN):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(30):
                w.add_scalar("loss", float(np.sin(step / 4)), step)
                for k in range(4):  # more cards below: the dashboard scrolls
                    w.add_scalar(f"zz/more{k}", float(np.cos(step / (k + 2))), step)
            for step in HUGE_STEPS:
                w.add_image("pictures", rng.uniform(0, 1, (3, 8, 8)), step)
            w.add_audio("sound", np.sin(np.arange(12_000) / 10).astype(np.float32) * 0.2, 3, sample_rate=8000)
    return root


def test_audio_players_show_their_length_before_playing(page: Any, serve: Any, logdir: Path) -> None:
    server = serve(logdir)
    open_dashboard(page, server.url, "audio")
    card = page.locator(".card[data-ready='1']").first
    card.wait_for(timeout=WAIT_MS)
    assert card.locator(".audio-duration").first.text_content() == "1.50 s"  # 12,000 frames at 8 kHz
    player = card.locator("audio").first
    assert player.get_attribute("preload") == "metadata"
    page.wait_for_function("a => a.readyState >= 1", arg=player.element_handle(), timeout=WAIT_MS)
    state = player.evaluate("a => ({duration: a.duration, paused: a.paused, time: a.currentTime})")
    assert state["paused"] and state["time"] == 0
    assert state["duration"] == pytest.approx(1.5, abs=0.01)  # the native player's own timeline knows it


# Each step label against its box: the run's figure in a time-series card, else the card.
_OVERFLOWS = """sel => Array.from(document.querySelectorAll(sel)).map((label) => {
  const card = label.closest('.card');
  const box = label.closest('.image-run') || card;
  const l = label.getBoundingClientRect();
  const c = box.getBoundingClientRect();
  const swatch = card.querySelector('.swatch').getBoundingClientRect();
  return {text: label.textContent, title: label.title, left: l.left - c.left, right: c.right - l.right,
          cardScroll: card.scrollWidth - card.clientWidth, swatch: swatch.width};
})"""


@pytest.mark.parametrize(("dashboard", "width"), [("images", 700), ("timeseries", 700), ("timeseries", 1280)])
def test_image_step_labels_stay_inside_their_card(
    page: Any, serve: Any, logdir: Path, dashboard: str, width: int
) -> None:
    server = serve(logdir)
    page.set_viewport_size({"width": width, "height": 900})
    open_dashboard(page, server.url, dashboard)
    page.locator("input[placeholder='Filter tags (regex)']:visible").fill("pictures")  # its cards on screen
    page.locator(".step-label").first.wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.step-label'))"
        ".some(l => l.textContent.includes('1234567'))",
        timeout=WAIT_MS,
    )
    labels = page.evaluate(_OVERFLOWS, ".step-label")
    assert labels
    for label in labels:
        if not label["text"]:
            continue
        assert label["left"] >= -0.5 and label["right"] >= -0.5, label  # inside its figure / card
        assert label["swatch"] >= 9, label  # the run's swatch is not squeezed by a long run name
        assert label["cardScroll"] <= 0, label  # and the card does not scroll sideways
        assert label["title"] == label["text"]  # the whole label when it is cut


def _tooltip_shown(page: Any) -> bool:
    return bool(
        page.evaluate(
            "() => { const t = document.querySelector('.tooltip');"
            " return !!t && getComputedStyle(t).display !== 'none'; }"
        )
    )


def _hover_chart(page: Any, card: Any) -> None:
    box = card.locator("canvas.chart-overlay").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    page.mouse.move(box["x"] + box["width"] * 0.55, box["y"] + box["height"] * 0.5)
    page.wait_for_function(
        "() => { const t = document.querySelector('.tooltip'); return t && t.style.display === 'block'; }",
        timeout=WAIT_MS,
    )


_SCROLL_MAIN = """() => {
  const main = document.querySelector('.main');
  main.scrollTop += 40;
  return main.scrollTop;
}"""


def test_tooltip_hides_when_the_layout_changes_under_the_pointer(page: Any, serve: Any, logdir: Path) -> None:
    server = serve(logdir)
    page.set_viewport_size({"width": 1280, "height": 500})  # the dashboard scrolls
    open_dashboard(page, server.url, "scalars")
    card = scalar_card(page, "loss")
    wait_chart(page, card)

    _hover_chart(page, card)
    assert page.evaluate(_SCROLL_MAIN) > 0  # the content scrolls under a still pointer
    page.wait_for_function(
        "() => document.querySelector('.tooltip').style.display === 'none'", timeout=WAIT_MS
    )

    page.evaluate("() => { document.querySelector('.main').scrollTop = 0; }")
    _hover_chart(page, card)
    page.set_viewport_size({"width": 1100, "height": 500})  # the window resizes
    page.wait_for_function(
        "() => document.querySelector('.tooltip').style.display === 'none'", timeout=WAIT_MS
    )

    _hover_chart(page, card)
    page.evaluate(
        "() => document.querySelector('.scalar-card .chart').remove()"
    )  # a re-render drops the chart
    page.wait_for_function(
        "() => document.querySelector('.tooltip').style.display === 'none'", timeout=WAIT_MS
    )

    page.reload()
    card = scalar_card(page, "loss")
    wait_chart(page, card)
    _hover_chart(page, card)
    page.evaluate("() => { location.hash = '#images'; }")  # another dashboard, the pointer not moved
    page.wait_for_function(
        "() => document.querySelector('.tooltip').style.display === 'none'", timeout=WAIT_MS
    )
    assert not _tooltip_shown(page)
