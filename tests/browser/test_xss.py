"""Script in run names, tags and Markdown text never runs, and names show as plain text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

import tbkit
from tests.browser._ui import (
    NO_SCRIPT_TRACES,
    WAIT_MS,
    open_dashboard,
    scalar_card,
    script_traces,
    wait_chart,
)

pytestmark = pytest.mark.browser

SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=1">'
# A run is a path relative to the logdir, so the "/" of "</script>" makes a nested directory.
RUNS = [SCRIPT, IMG]
TAGS = [SCRIPT, IMG]
MARKDOWN = f"**bold** before {SCRIPT} and {IMG} after"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("xss")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(5):
                for tag in TAGS:
                    w.add_scalar(tag, float(step + i), step)
            w.add_text("notes", MARKDOWN, 0)
    return root


def _assert_nothing_ran(page) -> None:
    assert script_traces(page, "__xss") == NO_SCRIPT_TRACES


def _forget_blocked_image(page_problems) -> None:
    """The sanitizer may keep ``<img src=x>`` without its handler; its 404 is not a script error."""
    errors = page_problems.console_errors
    errors[:] = [m for m in errors if not (m.startswith("Failed to load resource") and "/x)" in m)]


def test_run_names_and_tags_show_as_text(page, serve, logdir, page_problems):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    for tag in TAGS:
        card = scalar_card(page, tag)
        wait_chart(page, card, series=str(len(RUNS)))
        assert card.locator(".card-title").inner_text() == tag
        overlay = card.locator("canvas.chart-overlay")
        box = overlay.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.locator(".tooltip").wait_for(state="visible", timeout=WAIT_MS)
        shown = set(page.locator(".tooltip .tt-run").all_inner_texts())
        assert shown == set(RUNS)
        _assert_nothing_ran(page)
    names = page.locator(".run-list .run-item .run-name").all_inner_texts()
    assert sorted(n.strip() for n in names) == sorted(RUNS)
    assert page.locator(".run-list img").count() == 0
    _assert_nothing_ran(page)
    _forget_blocked_image(page_problems)


def test_markdown_text_is_sanitized(page, serve, logdir, page_problems):
    server = serve(logdir)
    open_dashboard(page, server.url, "text")
    page.locator(".dashboard[data-dashboard='text']").wait_for(timeout=WAIT_MS)
    bold = page.locator(".dashboard strong", has_text="bold")
    expect(bold).to_have_count(len(RUNS), timeout=WAIT_MS)  # the Markdown was rendered, once per run
    _assert_nothing_ran(page)
    body = page.locator(".dashboard").inner_text()
    assert "before" in body and "after" in body
    # Run names around the text cards are text too.
    for run in RUNS:
        assert run in body
    _forget_blocked_image(page_problems)
