"""The HParams dashboard in a real browser, against the real server: sessions written by tbkit
(the demo logdir), by torch's ``add_hparams`` (sub-runs) and by TensorFlow's ``hp.hparams``
(the committed tf_rich fixture). A brush dragged on a parallel-coordinates axis filters the table
to exactly the sessions whose values lie in the brushed range."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser._ui import WAIT_MS, get_json, open_dashboard, wait_dataset

pytestmark = pytest.mark.browser

TF_RICH = Path(__file__).resolve().parents[1] / "interop" / "fixtures" / "tf_rich"
ROOT = ".dashboard[data-dashboard='hparams']"
ROWS = ".hparams-table tbody tr:not([hidden])"


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """torch's add_hparams: one ``run<i>/<timestamp>`` session per run; only run0 has ``opt``."""
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("torch_hparams")
    for i, (lr, bs) in enumerate([(0.1, 32), (0.01, 64), (0.001, 128), (0.03, 256)]):
        w = SummaryWriter(str(root / f"run{i}"))
        for step in range(4):
            w.add_scalar("hparam/accuracy", 0.4 + i / 10 + step / 100, step)
        hp: dict[str, Any] = {"lr": lr, "bs": bs}
        if i == 0:
            hp["opt"] = "sgd"
        w.add_hparams(hp, {"hparam/accuracy": 0.5 + i / 10})
        w.close()
    return root


def _sessions(url: str) -> list[dict[str, Any]]:
    """The sessions, once the server's first load has finished."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while get_json(url, "data/reload_state")["loading"] and time.monotonic() < deadline:
        time.sleep(0.05)
    return get_json(url, "data/plugin/hparams/sessions")


def _open(page: Any, url: str, count: int) -> Any:
    open_dashboard(page, url, "hparams")
    root = page.locator(f"{ROOT}[data-ready='1'][data-sessions='{count}']")
    root.wait_for(timeout=WAIT_MS)
    page.locator(".parcoords[data-ready='1']").wait_for(timeout=WAIT_MS)
    return page.locator(ROOT)


def _axis(page: Any, column: str) -> Any:
    """The parallel-coordinates axis of a column (``h:<hparam>`` or ``m:<metric>``)."""
    return page.locator(f".pc-axis[data-column={json.dumps(column)}]")


def _wait(page: Any, selector: str) -> None:
    """Wait until an element matching ``selector`` (which encodes the expected state) is there."""
    page.locator(selector).first.wait_for(state="attached", timeout=WAIT_MS)


def _wait_shown(page: Any, n: int) -> None:
    """Wait until the dashboard shows ``n`` sessions (its ``data-shown``)."""
    page.wait_for_function(
        "([sel, n]) => document.querySelector(sel).dataset.shown === n", arg=[ROOT, str(n)], timeout=WAIT_MS
    )


def _brush(page: Any, column: str, top: float, bottom: float) -> tuple[float, float, bool]:
    """Drag along the axis of ``column`` from ``top`` to ``bottom`` (fractions of its height);
    returns the brushed range in plotted units and whether the axis is logarithmic."""
    axis = _axis(page, column)
    box = axis.locator(".pc-hit").bounding_box()
    x = box["x"] + box["width"] / 2
    generation = page.locator(ROOT).get_attribute("data-filter-gen")
    page.mouse.move(x, box["y"] + box["height"] * top)
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] * bottom, steps=6)
    page.mouse.up()
    page.wait_for_function(
        "([sel, g]) => document.querySelector(sel).dataset.filterGen !== g",
        arg=[ROOT, generation],
        timeout=WAIT_MS,
    )
    rect = axis.locator(".pc-brush")
    lo, hi = float(rect.get_attribute("data-lo")), float(rect.get_attribute("data-hi"))
    return lo, hi, axis.get_attribute("data-axis").endswith("|log")


def _in_range(value: float | None, lo: float, hi: float, log: bool) -> bool:
    if value is None:
        return False
    plotted = math.log10(value) if log else value
    return lo <= plotted <= hi


CASES = {
    # logdir: (hparam axis to brush, metric axis to brush, sessions)
    "demo": ("lr", "hparam/final_loss", 3),
    "torch": ("bs", "hparam/accuracy", 4),
    "tf_rich": ("lr", "accuracy", 2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_sessions_and_brushing(page, serve, page_problems, demo_logdir, torch_logdir, case):
    logdir = {"demo": demo_logdir, "torch": torch_logdir, "tf_rich": TF_RICH}[case]
    hparam, metric, count = CASES[case]
    server = serve(logdir)
    sessions = _sessions(server.url)
    assert len(sessions) == count
    root = _open(page, server.url, count)
    assert page.locator(ROWS).count() == count
    assert page.locator(".parcoords").get_attribute("data-lines") == str(count)

    lo, hi, log = _brush(page, f"h:{hparam}", 0.0, 0.6)
    expected = {s["name"] for s in sessions if _in_range(s["hparams"].get(hparam), lo, hi, log)}
    assert 0 < len(expected) < count
    shown = {page.locator(ROWS).nth(i).get_attribute("data-run") for i in range(page.locator(ROWS).count())}
    assert shown == expected
    assert root.get_attribute("data-shown") == str(len(expected))

    # A second brush, on a metric, narrows further (both must hold).
    mlo, mhi, mlog = _brush(page, f"m:{metric}", 0.0, 1.0)
    both = {
        s["name"]
        for s in sessions
        if s["name"] in expected and _in_range(s["metrics"][metric]["last"], mlo, mhi, mlog)
    }
    assert page.locator(ROWS).count() == len(both) == len(expected)
    assert root.get_attribute("data-brushed") == "2"
    page_problems.check()


def test_missing_values_have_their_own_row(page, serve, torch_logdir):
    server = serve(torch_logdir)
    _open(page, server.url, len(_sessions(server.url)))
    opt = _axis(page, "h:opt")
    assert opt.locator(".pc-tick-label", has_text="(none)").count() == 1
    # The filter checkbox for "(none)" hides the three sessions without `opt`.
    page.locator(".filter[data-column='h:opt'] input[data-value='null']").uncheck()
    _wait_shown(page, 1)
    assert page.locator(ROWS).first.locator("td").nth(0).inner_text().startswith("run0/")


def test_filters_session_panel_and_run_selector(page, serve, demo_logdir, page_problems):
    server = serve(demo_logdir)
    root = _open(page, server.url, len(_sessions(server.url)))
    # Discrete filter: only sgd.
    page.locator(".filter[data-column='h:optimizer'] input[data-value='\"adam\"']").uncheck()
    _wait_shown(page, 2)
    assert {page.locator(ROWS).nth(i).get_attribute("data-run") for i in range(2)} == {"lr_0.1", "lr_0.03"}
    # Sorting by lr, descending on the second click (unsorted, lr_0.03 comes first).
    header = page.locator(".hparams-table th[data-sort-key='h:lr']")
    header.click()
    _wait(page, ".hparams-table th[data-sort-key='h:lr'][aria-sort='ascending']")
    header.click()
    _wait(page, ".hparams-table th[data-sort-key='h:lr'][aria-sort='descending']")
    assert [page.locator(ROWS).nth(i).get_attribute("data-run") for i in range(2)] == ["lr_0.1", "lr_0.03"]
    # The shown sessions become the run selector's selection; deselected rows are dimmed.
    page.locator(".select-runs").click()
    page.wait_for_function("() => window.tbkit.ctx.runs.active().length === 2", timeout=WAIT_MS)
    _wait(page, ".run-item[data-run='lr_0.01'] input[type=checkbox]:not(:checked)")
    _wait(page, ".hparams-table tr[data-run='lr_0.1'][data-selected='1']")
    assert not page.locator(".run-item[data-run='lr_0.01'] input[type=checkbox]").is_checked()
    page.locator(".run-item[data-run='lr_0.1'] input[type=checkbox]").uncheck()
    _wait(page, ".hparams-table tr[data-run='lr_0.1'][data-selected='0']")
    assert "deselected" in (page.locator(".hparams-table tr[data-run='lr_0.1']").get_attribute("class") or "")
    # Clicking a session opens its metric curves (the scalar chart): ready once its data are drawn.
    page.locator(".hparams-table tr[data-run='lr_0.03']").click()
    panel = page.locator(".hparams-session[data-run='lr_0.03']")
    chart = panel.locator(".scalar-card[data-metric='hparam/final_loss'] .chart")
    assert wait_dataset(page, chart)["series"] == "1"
    # The scatter matrix: one column per hyperparameter, one row per metric, the shown sessions.
    page.locator(".session-close").click()
    page.locator(".splom-details summary").click()
    matrix = page.locator(".splom[data-ready='1']")
    matrix.wait_for(timeout=WAIT_MS)
    assert (matrix.get_attribute("data-columns"), matrix.get_attribute("data-rows")) == ("3", "1")
    assert matrix.get_attribute("data-points") == root.get_attribute("data-shown") == "2"
    # Interval and regex filters narrow further: lr >= 0.05 keeps lr_0.1, whose name has no "3".
    page.locator(".filter[data-column='h:lr'] input[aria-label='lr min']").fill("0.05")
    _wait_shown(page, 1)
    assert page.locator(ROWS).first.get_attribute("data-run") == "lr_0.1"
    page.locator("input.session-filter").fill("3")
    _wait_shown(page, 0)
    assert page.locator(ROWS).count() == 0
    page.locator(".reset-filters").click()
    _wait_shown(page, 3)
    assert page.locator(ROWS).count() == 3
    page_problems.check()


def test_session_chart_is_ready_only_with_its_data(page, serve, demo_logdir):
    """The session panel's chart draws a first, empty frame as soon as it is on screen; it says
    ``data-ready="1"`` only once the data it was opened for are drawn."""
    server = serve(demo_logdir)
    _open(page, server.url, len(_sessions(server.url)))
    held: list[Any] = []
    holding = [True]

    def hold(route: Any) -> None:
        if holding[0]:
            held.append(route)
        else:
            route.continue_()

    page.route(lambda url: "/data/plugin/scalars/scalars" in url, hold)
    page.locator(".hparams-table tr[data-run='lr_0.03']").click()
    panel = page.locator(".hparams-session[data-run='lr_0.03']")
    chart = panel.locator(".scalar-card[data-metric='hparam/final_loss'] .chart")
    # Every draw sets data-x-range: the empty frame is drawn while the data request is held.
    chart.wait_for(state="attached", timeout=WAIT_MS)
    page.wait_for_function(
        "el => el.dataset.xRange !== undefined", arg=chart.element_handle(), timeout=WAIT_MS
    )
    assert held, "the chart's data request was not held"
    assert chart.get_attribute("data-ready") == "0"
    holding[0] = False
    for route in held:
        route.continue_()
    assert wait_dataset(page, chart)["series"] == "1"


# The drag's last move and its release in one task, so that no frame is drawn between them;
# the brush rectangle's range before them and when the release has published the filtering.
RELEASE = """([root, column, x, y]) => {
  const dash = document.querySelector(root);
  const svg = dash.querySelector(".parcoords svg");
  const range = () => {
    const r = dash.querySelector(`.pc-axis[data-column="${column}"] .pc-brush`);
    return r && [r.getAttribute("data-lo"), r.getAttribute("data-hi")];
  };
  const before = range();
  const gen = dash.dataset.filterGen;
  const at = { bubbles: true, pointerId: 1, pointerType: "mouse", isPrimary: true, clientX: x, clientY: y };
  svg.dispatchEvent(new PointerEvent("pointermove", at));
  svg.dispatchEvent(new PointerEvent("pointerup", at));
  return { before, published: dash.dataset.filterGen !== gen, atRelease: range() };
}"""
NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def test_a_released_brush_is_drawn_before_the_filtering_is_published(page, serve, demo_logdir):
    """When ``data-filter-gen`` changes on release, ``.pc-brush`` already shows the final range
    (not the range of an earlier pointer move, drawn a frame before)."""
    server = serve(demo_logdir)
    _open(page, server.url, len(_sessions(server.url)))
    axis = _axis(page, "h:lr")
    box = axis.locator(".pc-hit").bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, box["y"] + box["height"] * 0.05)
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] * 0.3, steps=3)
    axis.locator(".pc-brush").wait_for(timeout=WAIT_MS)  # a frame of the drag is drawn
    state = page.evaluate(RELEASE, [ROOT, "h:lr", x, box["y"] + box["height"] * 0.8])
    page.mouse.up()  # the drag is over already: nothing more happens
    page.evaluate(NEXT_FRAMES)
    rect = axis.locator(".pc-brush")
    final = [rect.get_attribute("data-lo"), rect.get_attribute("data-hi")]
    assert state["published"]
    assert state["before"] != final  # the last move changed the range
    assert state["atRelease"] == final


def test_table_pages(page, serve, tmp_path):
    import tbkit

    with tbkit.SummaryWriter(str(tmp_path)) as w:
        for i in range(30):
            w.add_hparams({"width": float(i)}, {"score": i / 30}, run_name=f"s{i:02d}", global_step=0)
    server = serve(tmp_path)
    _open(page, server.url, len(_sessions(server.url)))
    page.locator(".page-size").select_option("25")
    _wait(page, ".hparams-table[data-rows='25'][data-total='30']")
    assert page.locator(ROWS).count() == 25
    assert page.locator(".page-range").inner_text() == "1–25 of 30"
    header = page.locator(".hparams-table th[data-sort-key='h:width']")
    header.click()
    _wait(page, ".hparams-table th[data-sort-key='h:width'][aria-sort='ascending']")
    header.click()
    _wait(page, ".hparams-table th[data-sort-key='h:width'][aria-sort='descending']")
    assert page.locator(ROWS).first.get_attribute("data-run") == "s29"
    page.locator(".page-next").click()
    _wait(page, ".hparams-table[data-page='1']")
    assert [page.locator(ROWS).nth(i).get_attribute("data-run") for i in range(5)] == [
        f"s0{i}" for i in range(4, -1, -1)
    ]
