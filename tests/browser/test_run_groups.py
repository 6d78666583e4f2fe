"""Run groups in a real browser: a group's line and band equal pandas' mean ± std over its members."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit.plugins.colors import assign_colors
from tests.browser._ui import WAIT_MS, color_pixels, open_dashboard, scalar_card, wait_chart

pytestmark = pytest.mark.browser

TAG = "loss"
STEPS = 50


def logged(group: str, seed: int) -> dict[int, float]:
    """Multiples of 1/8 (exact in float32); seed 2 logs every other step only (unaligned steps)."""
    rng = np.random.default_rng(10 * seed + (group == "b"))
    level = 2.0 if group == "a" else 6.0
    steps = range(0, STEPS, 2 if seed == 2 else 1)
    return {s: float(np.round((level + rng.normal(0, 0.8)) * 8) / 8) for s in steps}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("run_groups")
    for group in ("a", "b"):
        for seed in range(3):
            with tbkit.SummaryWriter(str(root / f"{group}_seed{seed}")) as w:
                for step, value in logged(group, seed).items():
                    w.add_scalar(TAG, value, step)
    return root


def pandas_groups(logdir: Path, groups: dict[str, str]) -> pd.DataFrame:
    """mean, std (pandas' default ddof=1), count per (group, step), written plainly."""
    df = tbkit.read(str(logdir)).scalars()
    df = df.assign(group=df["run"].astype(str).map(groups)).dropna(subset=["group"])
    g = df.groupby(["group", "step"])["value"]
    return pd.DataFrame({"mean": g.mean(), "std": g.std().fillna(0.0), "n": g.count()})


def group_by_regex(page, pattern: str) -> None:
    page.locator("details.group-runs > summary").click()
    page.locator("select.group-mode").select_option("regex")
    page.locator("input.group-regex").fill(pattern)
    page.locator("details.group-runs > summary").click()  # close the panel


def test_group_band_equals_pandas_mean_std(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "scalars")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="6")
    page.locator("input.smoothing").fill("0")
    with page.expect_response(lambda r: "/data/plugin/scalars/groups" in r.url, timeout=WAIT_MS) as info:
        group_by_regex(page, r"(.*)_seed\d+")
    answer = info.value.json()
    state = wait_chart(page, card, series="2", bands="2")
    assert card.get_attribute("data-groups") == "2"
    want = pandas_groups(logdir, {f"{g}_seed{i}": g for g in "ab" for i in range(3)})

    # The JSON the chart drew: every step of each group, line and band as pandas computes them.
    assert list(answer) == ["a", "b"]
    for name, got in answer.items():
        ref = want.loc[name]
        assert got["step"] == ref.index.tolist()
        np.testing.assert_allclose(got["value"], ref["mean"], rtol=1e-12)
        np.testing.assert_allclose(got["lower"], ref["mean"] - ref["std"], rtol=1e-12)
        np.testing.assert_allclose(got["upper"], ref["mean"] + ref["std"], rtol=1e-12)
        assert got["count"] == ref["n"].tolist() and set(got["count"]) == {2, 3}
    assert int(state["bandPoints"]) == 2 * STEPS

    # The tooltip reads the chart's own arrays: group rows with value and band at the hovered step.
    box = card.locator("canvas.chart-overlay").bounding_box()
    checked = 0
    for frac in (0.2, 0.5, 0.85):
        page.mouse.move(box["x"] + box["width"] * frac, box["y"] + box["height"] / 2)
        page.locator(".tooltip").wait_for(state="visible", timeout=WAIT_MS)
        rows = page.locator(".tooltip tbody tr").evaluate_all("rs => rs.map(r => ({...r.dataset}))")
        assert page.locator(".tooltip th").nth(1).text_content() == "Group"
        assert sorted(r["run"] for r in rows) == ["a", "b"]
        for r in rows:
            ref = want.loc[(r["run"], int(r["step"]))]
            assert float(r["value"]) == pytest.approx(ref["mean"], rel=1e-12)
            assert float(r["lower"]) == pytest.approx(ref["mean"] - ref["std"], rel=1e-12)
            assert float(r["upper"]) == pytest.approx(ref["mean"] + ref["std"], rel=1e-12)
            assert int(r["count"]) == ref["n"]
            checked += 1
    assert checked == 6

    # The band is painted: the group colour at the band's opacity over the card's white.
    page.mouse.move(0, 0)
    png = card.locator("canvas.chart-canvas").screenshot(animations="disabled")
    for name in ("a", "b"):
        color = assign_colors(["a", "b"])[name]  # the groups' colours: the palette in natural order
        rgb = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
        fill = tuple(int(v) for v in np.round(0.2 * rgb + 0.8 * 255))
        assert color_pixels(png, fill, tolerance=6) > 300, name

    # The groups' CSV download: the full-resolution rows of tbkit.aggregate, equal to pandas.
    card.locator("details.downloads > summary").click()
    with page.expect_download(timeout=WAIT_MS) as download:
        card.locator(".group-download").get_by_text("CSV", exact=True).click()
    got = pd.read_csv(io.StringIO(Path(download.value.path()).read_text()))
    assert list(got.columns) == ["group", "tag", "step", "wall_time", "value", "lower", "upper", "count"]
    ref = want.reset_index()
    assert got[["group", "step"]].values.tolist() == ref[["group", "step"]].values.tolist()
    np.testing.assert_allclose(got["lower"], ref["mean"] - ref["std"], rtol=1e-12)


def test_groups_by_hand_and_members(page, serve, logdir):
    server = serve(logdir)
    open_dashboard(page, server.url, "scalars")
    card = scalar_card(page, TAG)
    wait_chart(page, card, series="6")
    page.locator("details.group-runs > summary").click()
    page.locator("select.group-mode").select_option("manual")
    for run in ("a_seed0", "b_seed1"):
        page.locator(f"input.group-name[data-run='{run}']").fill("mine")
        page.locator(f"input.group-name[data-run='{run}']").press("Enter")
        page.locator(f"input.group-name[data-run='{run}']").blur()
    state = wait_chart(page, card, series="5", bands="5")  # "mine" and four runs on their own
    assert card.get_attribute("data-groups") == "5"
    with page.expect_response(lambda r: "/data/plugin/scalars/groups" in r.url, timeout=WAIT_MS) as info:
        page.locator("input.group-members").check()
    state = wait_chart(page, card, series="11")  # 5 groups + 6 faint member lines
    mine = info.value.json()["mine"]
    assert mine["members"] == ["a_seed0", "b_seed1"]
    want = pandas_groups(logdir, {"a_seed0": "mine", "b_seed1": "mine"}).loc["mine"]
    np.testing.assert_allclose(mine["upper"], want["mean"] + want["std"], rtol=1e-12)
    assert state["bands"] == "5"
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('tbkit.chart.settings'))")
    assert stored["groupManual"] == {"a_seed0": "mine", "b_seed1": "mine"}
    assert json.dumps(stored["groupMode"]) == '"manual"'
