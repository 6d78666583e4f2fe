"""Run colours in a real browser: ten runs get ten colours far apart, the same in every dashboard
and after a reload (measured from what the page shows: pickers, chart pixels, hparams swatches)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tbkit
from tests._colorspace import min_delta_e, nearest_delta_e, parse_hex
from tests.browser._ui import WAIT_MS, color_pixels, open_dashboard, png_array, scalar_card, wait_chart

pytestmark = pytest.mark.browser

FAMILIES = {"run": [f"run{i}" for i in range(1, 11)], "seed": [f"seed{i}" for i in range(10)]}
MIN_DELTA_E = 30  # CIE76; ~2.3 is just noticeable, >25 reads as a different colour
ROOT_HP = ".dashboard[data-dashboard='hparams']"


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[str]]:
    names = FAMILIES[request.param]
    root = tmp_path_factory.mktemp(f"colors_{request.param}")
    for k, name in enumerate(names):  # apart, gently sloped lines: some pixels of each are unmixed
        with tbkit.SummaryWriter(str(root / name)) as w:
            for step in range(20):
                w.add_scalar("loss", k + 0.04 * step, step)
            w.add_hparams({"lr": 0.1 * (k + 1)}, {"hparam/score": float(k)})
    return root, names


def picker_colors(page) -> dict[str, str]:
    """The runs panel's colour pickers, as the page shows them."""
    page.locator(".run-list .run-item").first.wait_for(timeout=WAIT_MS)
    return page.eval_on_selector_all(
        ".run-list .run-item",
        "items => Object.fromEntries(items.map(li =>"
        " [li.dataset.run, li.querySelector('input.run-color').value]))",
    )


def css_hex(rgb_text: str) -> str:
    r, g, b = (int(v) for v in re.findall(r"\d+", rgb_text)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def test_ten_runs_get_ten_distinct_colours_everywhere(page, serve, family) -> None:
    logdir, names = family
    server = serve(logdir)
    open_dashboard(page, server.url, "scalars")
    shown = picker_colors(page)
    assert sorted(shown) == sorted(names)
    rgb = {n: parse_hex(c) for n, c in shown.items()}
    assert len(set(shown.values())) == 10
    assert min_delta_e(rgb.values()) >= MIN_DELTA_E

    # The scalars chart draws every run's line in its panel colour (pixels of that colour).
    card = scalar_card(page, "loss")
    wait_chart(page, card, series="10")
    page.mouse.move(0, 0)
    pixels = png_array(card.locator("canvas.chart-canvas").screenshot(animations="disabled"))
    for name, color in rgb.items():  # the line's own colour is on the canvas (not only blends of it)
        assert nearest_delta_e(pixels, color) <= 3, name

    # The hparams table's swatches: the same colour per run.
    open_dashboard(page, server.url, "hparams")
    rows = page.locator(f"{ROOT_HP} .hparams-table tbody tr")
    rows.first.wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        f'n => document.querySelectorAll("{ROOT_HP} .hparams-table tbody tr").length >= n',
        arg=10,
        timeout=WAIT_MS,
    )
    swatches = page.eval_on_selector_all(
        f"{ROOT_HP} .hparams-table tbody tr",
        "trs => trs.map(tr =>"
        " [tr.dataset.run, getComputedStyle(tr.querySelector('.swatch')).backgroundColor])",
    )
    assert {run: css_hex(bg) for run, bg in swatches} == shown

    # After a reload, on another dashboard: the same colours.
    page.reload()
    open_dashboard(page, server.url, "timeseries")
    assert picker_colors(page) == shown


def test_a_picked_colour_is_kept_across_reloads_and_dashboards(page, serve, family) -> None:
    logdir, names = family
    server = serve(logdir)
    open_dashboard(page, server.url, "scalars")
    before = picker_colors(page)
    target = names[3]
    page.eval_on_selector(
        f".run-item[data-run='{target}'] input.run-color",
        "el => { el.value = '#123456'; el.dispatchEvent(new Event('change')); }",
    )
    page.reload()
    open_dashboard(page, server.url, "scalars")
    after = picker_colors(page)
    assert after == {**before, target: "#123456"}
    card = scalar_card(page, "loss")
    wait_chart(page, card, series="10")
    page.mouse.move(0, 0)
    png = card.locator("canvas.chart-canvas").screenshot(animations="disabled")
    assert color_pixels(png, (0x12, 0x34, 0x56), tolerance=10) > 40
