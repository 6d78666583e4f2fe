"""Many tags: the card grids hold only the cards near the screen, and the tag search runs on the server."""

from __future__ import annotations

import re

import pytest

import tbkit
from tests.browser._ui import WAIT_MS, get_json, open_dashboard, scalar_card, wait_chart

pytestmark = pytest.mark.browser

TAGS = [f"g{i % 3}/t{i:03d}" for i in range(600)]
ODD = 'zz/<img src=x onerror=alert(1)> [a+b] & "q"'  # the last card: its group sorts last
CARDS = ".paged-block .card"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("many_tags")
    with tbkit.SummaryWriter(str(root / "run")) as writer:
        for step in range(3):
            for i, tag in enumerate([*TAGS, ODD]):
                writer.add_scalar(tag, i + step * 0.5, step)
    return root


def _cards_asked(page) -> list[str]:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/data/plugin/timeseries/cards" in r.url else None)
    return asked


def _dom_tags(page) -> list[str]:
    return page.locator(f"{CARDS} .card-title").evaluate_all("els => els.map(e => e.textContent)")


def _scroll_to_bottom(page) -> None:
    """Scroll the dashboard down until its last block has its cards (blocks grow as they fill)."""
    page.wait_for_function(
        """() => {
          const main = document.querySelector('#main');
          main.scrollTop = main.scrollHeight;
          const blocks = document.querySelectorAll('.paged-block');
          return blocks.length && blocks[blocks.length - 1].querySelector('.card') !== null;
        }""",
        polling=200,
        timeout=WAIT_MS,
    )


@pytest.mark.parametrize("dashboard", ["timeseries", "scalars"])
def test_the_dom_holds_far_fewer_cards_than_tags(page, serve, logdir, dashboard):
    server = serve(logdir)
    open_dashboard(page, server.url, dashboard)
    wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    assert page.locator(".card-sections").get_attribute("data-total") == str(len(TAGS) + 1)
    shown = _dom_tags(page)
    assert 0 < len(shown) < 100, len(shown)
    # Only the cards in view fetched their data (one scalars request each, at most).
    assert page.locator(".scalar-card .chart[data-ready='1']").count() <= len(shown)

    _scroll_to_bottom(page)
    wait_chart(page, scalar_card(page, ODD), series="1")
    assert scalar_card(page, ODD).locator(".card-title").inner_text() == ODD  # text, never markup
    assert page.locator(".paged-block img").count() == 0
    shown = _dom_tags(page)
    assert "g0/t000" not in shown and len(shown) < 100, len(shown)


def test_scrolling_back_up_brings_the_first_cards_again(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    _scroll_to_bottom(page)
    scalar_card(page, ODD).wait_for(timeout=WAIT_MS)
    page.evaluate("() => { document.querySelector('#main').scrollTop = 0; }")
    state = wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    assert state["total"] == "3"
    assert page.locator(".card-section[data-group='g0'] .section-title .count").first.inner_text() == "200"


def test_the_filter_is_searched_on_the_server(page, serve, logdir):
    server = serve(logdir)
    asked = _cards_asked(page)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    page.locator(".tag-filter").fill("T59[0-5]$")
    page.wait_for_function(
        "() => document.querySelector('.card-sections').dataset.total === '6'", timeout=WAIT_MS
    )
    for tag in ["g2/t590", "g0/t591", "g2/t593"]:
        wait_chart(page, scalar_card(page, tag), series="1")
    page.wait_for_function(f"() => document.querySelectorAll('{CARDS}').length === 6", timeout=WAIT_MS)
    # Sections by group, tags in order within each.
    assert _dom_tags(page) == [f"g{i % 3}/t{i}" for i in sorted(range(590, 596), key=lambda i: (i % 3, i))]
    assert any("regex=T59" in url for url in asked)
    # The datalist suggests tags from the server's search.
    options = page.locator("#ts-tag-list option")
    options.first.wait_for(state="attached", timeout=WAIT_MS)
    assert set(options.evaluate_all("os => os.map(o => o.value)")) <= {
        f"g{i % 3}/t{i}" for i in range(590, 596)
    }

    # A name with markup and regex characters: found by its escaped pattern, shown as text.
    page.locator(".tag-filter").fill(re.escape("<img src=x onerror=alert(1)> [a+b]"))
    wait_chart(page, scalar_card(page, ODD), series="1")
    assert _dom_tags(page) == [ODD]

    # A pattern that does not compile is marked and never sent.
    before = len(asked)
    page.locator(".tag-filter").fill("t0(")
    page.wait_for_selector(".tag-filter.invalid", timeout=WAIT_MS)
    page.wait_for_timeout(400)
    assert not any("t0(" in u or "t0%28" in u for u in asked[before:])
    assert _dom_tags(page) == [ODD]


def test_search_route_answers_with_the_matching_tags(serve, logdir):
    server = serve(logdir)
    found = get_json(server.url, "data/plugin/timeseries/search", regex=r"^g1/t0[0-2]\d$", limit=5)
    assert found["total"] == 10 and found["tags"] == ["g1/t001", "g1/t004", "g1/t007", "g1/t010", "g1/t013"]
    odd = get_json(server.url, "data/plugin/timeseries/search", regex=re.escape(ODD))
    assert odd["tags"] == [ODD]


def test_a_pinned_card_from_far_down_comes_first(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    page.locator(".tag-filter").fill("^g2/t599$")
    card = scalar_card(page, "g2/t599")
    wait_chart(page, card, series="1")
    card.locator("button.pin").click()
    page.locator(".tag-filter").fill("")
    pinned = page.locator(".card-section.pinned")
    pinned.locator(".card-title", has_text="g2/t599").wait_for(timeout=WAIT_MS)
    assert _dom_tags(page)[0] == "g2/t599"
    assert pinned.locator("button.pin").get_attribute("aria-pressed") == "true"
    # Kept across a reload of the page.
    page.reload()
    page.locator(".card-section.pinned .card-title", has_text="g2/t599").wait_for(timeout=WAIT_MS)


def test_a_pattern_only_the_server_refuses_is_said_so(page, serve, logdir, page_problems):
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    wait_chart(page, scalar_card(page, "g0/t000"), series="1")
    # A lookahead: JavaScript has it; the server's RE2 (linear-time matching) refuses it.
    page.locator(".tag-filter").fill("t00(?=[0-2])")
    note = page.locator(".paged-status .empty.error")
    note.wait_for(timeout=WAIT_MS)
    assert "not valid" in note.inner_text() and "linear time" in note.inner_text()
    assert page.locator(CARDS).count() == 0
    page.locator(".tag-filter").fill("(?:t00[0-2])$")
    wait_chart(page, scalar_card(page, "g1/t001"), series="1")
    assert sorted(_dom_tags(page)) == ["g0/t000", "g1/t001", "g2/t002"]
    assert page.locator(".paged-status .empty.error").count() == 0
    # The refused request is the one console error (Chromium logs every 4xx answer).
    refused = [m for m in page_problems.console_errors if "400" in m]
    assert len(refused) >= 1 and len(page_problems.console_errors) == len(refused)
    page_problems.console_errors.clear()
