"""The view in the URL, in a real browser: it survives a reload and a shared URL opens the same view."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import tbkit
from tests.browser._ui import WAIT_MS, open_dashboard, scalar_card, wait_chart
from tests.browser.conftest import VIEWPORT

pytestmark = pytest.mark.browser

# A run is a directory: any character but "/" (these need escaping in a URL).
ODD = "b&c=d #?é"
RUNS = ["a1", ODD, "c3", "d4"]
TAGS = ["acc", "loss", "lr"]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("urlstate")
    for i, run in enumerate(RUNS):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(5):
                for j, tag in enumerate(TAGS):
                    w.add_scalar(tag, float(i + j + step), step)
    return root


def view_query(page: Any) -> dict[str, list[str]]:
    """The query of the page's hash, decoded."""
    fragment = urllib.parse.urlsplit(page.url).fragment
    return urllib.parse.parse_qs(fragment.partition("?")[2], keep_blank_values=True)


def wait_query(page: Any, **want: list[str]) -> dict[str, list[str]]:
    """Wait until the hash's query holds every ``key: values`` of ``want``; returns the query."""
    page.wait_for_function(
        """want => {
          const q = new URLSearchParams(location.hash.slice(location.hash.indexOf('?') + 1));
          return location.hash.includes('?')
            && Object.entries(want).every(([k, v]) => JSON.stringify(q.getAll(k)) === JSON.stringify(v));
        }""",
        arg=want,
        timeout=WAIT_MS,
    )
    return view_query(page)


def selected_runs(page: Any) -> set[str]:
    """The selected runs (whether or not the run filter shows them), from the page's run store."""
    return set(
        page.evaluate("() => tbkit.ctx.runs.runs.map(r => r.name).filter(n => tbkit.ctx.runs.isSelected(n))")
    )


def shown_tags(page: Any) -> list[str]:
    return sorted(page.locator(".scalar-card .card-title").all_inner_texts())


def assert_view(
    page: Any, *, smoothing: str, x_axis: str, run_filter: str, tag_filter: str, selected: set[str]
):
    """The page shows the view: controls, run selection, cards and what their charts draw."""
    page.locator(".run-item").first.wait_for(timeout=WAIT_MS)
    assert page.locator("input.smoothing").input_value() == smoothing
    assert page.locator("select.x-axis").input_value() == x_axis
    assert page.locator(".run-filter").input_value() == run_filter
    assert page.locator(".tag-filter").input_value() == tag_filter
    page.wait_for_function("n => tbkit.ctx.runs.runs.length === n", arg=len(RUNS), timeout=WAIT_MS)
    assert selected_runs(page) == selected


@contextmanager
def fresh_page(browser: Any) -> Iterator[Any]:
    """A page in a new context (no storage of its own), failing on page and console errors."""
    context = browser.new_context(viewport=VIEWPORT)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        yield page
        assert errors == []
    finally:
        context.close()


def test_view_survives_a_reload_and_a_shared_url_shows_it(page, serve, logdir, browser):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "loss"), series=str(len(RUNS)))

    page.locator("input.smoothing").fill("0.3")
    page.locator("select.x-axis").select_option("relative")
    page.locator(".run-filter").fill("^(a1|b|c3)")
    page.locator(".run-item", has_text="c3").locator("input[type=checkbox]").uncheck()
    page.locator(".tag-filter").fill("^(loss|acc)$")
    query = wait_query(page, smoothing=["0.3"], x=["relative"], hide=["c3"], tags=["^(loss|acc)$"])
    assert query["runfilter"] == ["^(a1|b|c3)"]
    view = {
        "smoothing": "0.3",
        "x_axis": "relative",
        "run_filter": "^(a1|b|c3)",
        "tag_filter": "^(loss|acc)$",
        "selected": {"a1", ODD, "d4"},
    }

    def check(pg: Any) -> None:
        assert_view(pg, **view)
        card = scalar_card(pg, "loss")
        # a1 and the odd run: c3 is deselected, d4 does not pass the filter.
        state = wait_chart(pg, card, series="2", xAxis="relative")
        assert state["xAxis"] == "relative"
        pg.wait_for_function("() => document.querySelectorAll('.scalar-card').length === 2", timeout=WAIT_MS)
        assert shown_tags(pg) == ["acc", "loss"]

    page.reload()
    check(page)
    shared = page.url
    with fresh_page(browser) as other:
        other.goto(shared)
        check(other)
        assert other.url == shared  # the view written back is the one opened


def test_the_shorter_run_list_is_written_and_names_round_trip(page, serve, logdir, browser):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "loss"), series=str(len(RUNS)))
    # One run of four shown: the list of runs shown is the shorter.
    page.get_by_role("button", name="None", exact=True).click()
    page.locator(".run-item", has_text="a1").locator("input[type=checkbox]").check()
    query = wait_query(page, run=["a1"])
    assert "hide" not in query
    with fresh_page(browser) as other:
        other.goto(page.url)
        assert_view(other, smoothing="0.6", x_axis="step", run_filter="", tag_filter="", selected={"a1"})
        wait_chart(other, scalar_card(other, "loss"), series="1")
    # One run hidden, whose name needs escaping: the list of runs hidden is the shorter.
    page.get_by_role("button", name="All", exact=True).click()
    page.locator(".run-item", has_text=ODD).locator("input[type=checkbox]").uncheck()
    query = wait_query(page, hide=[ODD])
    assert "run" not in query
    with fresh_page(browser) as other:
        other.goto(page.url)
        assert_view(
            other, smoothing="0.6", x_axis="step", run_filter="", tag_filter="", selected=set(RUNS) - {ODD}
        )
        wait_chart(other, scalar_card(other, "loss"), series=str(len(RUNS) - 1))
    # Every run again: no list at all.
    page.get_by_role("button", name="All", exact=True).click()
    page.wait_for_function("() => !/[?&](run|hide)=/.test(location.hash)", timeout=WAIT_MS)


def test_a_url_overrides_what_the_browser_remembered(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "loss"), series=str(len(RUNS)))
    page.locator("input.smoothing").fill("0.9")
    page.locator(".run-item", has_text="a1").locator("input[type=checkbox]").uncheck()
    wait_query(page, smoothing=["0.9"], hide=["a1"])
    page.goto(f"{server.url}/#timeseries?smoothing=0.2&x=wall&tags=lr")
    assert_view(page, smoothing="0.2", x_axis="wall", run_filter="", tag_filter="lr", selected=set(RUNS))
    wait_chart(page, scalar_card(page, "lr"), series=str(len(RUNS)), xAxis="wall")


def test_an_old_tab_link_keeps_working_and_gets_the_view(page, serve, logdir):
    server = serve(logdir)
    page.goto(f"{server.url}/#scalars")
    page.wait_for_function("() => document.body.dataset.dashboard === 'scalars'", timeout=WAIT_MS)
    wait_chart(page, scalar_card(page, "loss"), series=str(len(RUNS)))
    assert wait_query(page, smoothing=["0.6"], x=["step"])
    assert urllib.parse.urlsplit(page.url).fragment.startswith("scalars?")
    # A tab link changes the dashboard and keeps the view.
    page.locator("select.x-axis").select_option("relative")
    page.locator(".tab", has_text="Time Series").click()
    page.wait_for_function("() => document.body.dataset.dashboard === 'timeseries'", timeout=WAIT_MS)
    wait_query(page, x=["relative"])
    assert urllib.parse.urlsplit(page.url).fragment.startswith("timeseries?")
