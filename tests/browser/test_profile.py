"""The Profile dashboard in a real browser: tbkit's demo traces and a torch.profiler trace.

The numbers on the page (events drawn, operator totals, step count, the selected event's
details) are checked against the trace JSON read here in Python.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.browser._ui import WAIT_MS, open_dashboard, png_array
from tests.plugins.profile._profile_data import write_torch_trace

pytestmark = pytest.mark.browser

DRAWN_PHASES = ("X", "i", "I")  # these traces have no B/E pairs


def _events(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)["traceEvents"]


def _op_totals(events: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, float]]:
    out: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for e in events:
        if e.get("ph") == "X":
            row = out[(e["name"], e.get("cat", ""))]
            row[0] += 1
            row[1] += e["dur"]
    return {k: (int(v[0]), v[1]) for k, v in out.items()}


def _open_profile(page: Any, url: str) -> Any:
    open_dashboard(page, url, "profile")
    root = page.locator(".dashboard[data-dashboard='profile'][data-ready='1']")
    root.wait_for(timeout=WAIT_MS)
    return root


def _dataset(locator: Any) -> dict[str, str]:
    return locator.evaluate("el => Object.assign({}, el.dataset)")


def _check_op_table(page: Any, events: list[dict[str, Any]]) -> int:
    expected = _op_totals(events)
    rows = page.locator(".op-table tbody tr").evaluate_all(
        "rows => rows.map(r => Object.assign({}, r.dataset))"
    )
    assert len(rows) == len(expected)
    for row in rows:
        count, total = expected[(row["name"], row["category"])]
        assert int(row["count"]) == count, row
        assert float(row["total"]) == pytest.approx(total, rel=1e-9, abs=1e-6), row
    return len(rows)


def _select(page: Any, timeline: Any, index: int) -> dict[str, str]:
    """Click event ``index`` where the timeline draws it; return the details panel's data."""
    pos = timeline.evaluate(f"el => el.timeline.positionOf({index})")
    assert pos is not None
    page.mouse.click(pos["x"], pos["y"])
    details = page.locator(f".event-details[data-index='{index}'][data-ready='1']")
    details.wait_for(timeout=WAIT_MS)
    return _dataset(details)


def test_demo_traces(page: Any, serve: Any, demo_logdir: Path) -> None:
    server = serve(demo_logdir)
    root = _open_profile(page, server.url)
    state = _dataset(root)
    assert state["traces"] == "3"  # one trace (session demo, worker worker0) per run
    assert (state["session"], state["worker"]) == ("demo", "worker0")
    events = _events(demo_logdir / state["run"] / "plugins/profile/demo/worker0.pt.trace.json.gz")
    timeline = page.locator(".timeline[data-ready='1']")
    tl = _dataset(timeline)
    assert int(tl["events"]) == sum(e["ph"] in DRAWN_PHASES for e in events)
    assert tl["tracks"] == str(len({(e["pid"], e["tid"]) for e in events}))
    assert int(tl["drawn"]) + int(tl["merged"]) == int(tl["events"])  # every event, at full view
    pixels = png_array(page.locator(".timeline canvas").screenshot())
    assert len({tuple(p) for p in pixels.reshape(-1, 3)[::7]}) > 8  # coloured events, not a blank canvas

    # The longest forward pass: its details are the trace's.
    forward = max((e for e in events if e["name"] == "forward"), key=lambda e: e["dur"])
    names = page.evaluate("() => document.querySelector('.timeline').timeline.data.names")
    index = page.evaluate(
        "([name, ts]) => { const d = document.querySelector('.timeline').timeline.data;"
        " for (let i = 0; i < d.n; i++)"
        " if (d.names[d.name[i]] === name && Math.abs(d.ts[i] - ts) < 1e-6) return i; return -1; }",
        ["forward", forward["ts"] - min(e["ts"] for e in events)],
    )
    assert index >= 0 and "forward" in names
    details = _select(page, timeline, index)
    assert details["name"] == "forward" and float(details["dur"]) == forward["dur"]
    facts = page.locator(".event-details .fact").evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.dataset.key, e.querySelector('.fact-value').textContent]))"
    )
    assert facts["Category"] == "cpu_op" and facts["Phase"] == "X" and facts["Track"] == "1 / 1"
    assert _dataset(timeline)["selected"] == str(index)

    _check_op_table(page, events)
    steps = page.locator(".step-times")
    assert steps.get_attribute("data-steps") == str(
        sum(e["name"].startswith("ProfilerStep#") for e in events)
    )

    # Another run: the selects switch the trace.
    other = next(r for r in ("lr_0.1", "lr_0.03", "lr_0.01") if r != state["run"])
    page.select_option("select.profile-run", other)
    page.wait_for_function(
        "run => { const d = document.querySelector('.dashboard[data-dashboard=profile]').dataset;"
        " return d.run === run && d.ready === '1'; }",
        arg=other,
        timeout=WAIT_MS,
    )
    _check_op_table(page, _events(demo_logdir / other / "plugins/profile/demo/worker0.pt.trace.json.gz"))


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run holding only the trace torch.profiler.tensorboard_trace_handler wrote."""
    root = tmp_path_factory.mktemp("torch_profile_ui")
    write_torch_trace(root / "tiny")
    return root


def test_torch_profiler_trace(page: Any, serve: Any, torch_logdir: Path) -> None:
    server = serve(torch_logdir)
    root = _open_profile(page, server.url)
    state = _dataset(root)
    assert (state["run"], state["worker"], state["traces"]) == ("tiny", "w", "1")
    (path,) = (torch_logdir / "tiny").glob("*.pt.trace.json")
    events = _events(path)
    timeline = page.locator(".timeline[data-ready='1']")
    assert int(_dataset(timeline)["events"]) == sum(e["ph"] in DRAWN_PHASES for e in events)

    # Operator totals, computed here from the JSON; then sort by calls.
    n = _check_op_table(page, events)
    page.locator(".op-table th button[data-sort='count']").click()
    counts = page.locator(".op-table tbody tr").evaluate_all("rows => rows.map(r => Number(r.dataset.count))")
    assert len(counts) == n and counts == sorted(counts, reverse=True)
    page.locator(".op-table th button[data-sort='count']").click()
    counts = page.locator(".op-table tbody tr").evaluate_all("rows => rows.map(r => Number(r.dataset.count))")
    assert counts == sorted(counts)

    # Step times: ProfilerStep#1 and #2 (warmup 1, active 2).
    steps = page.locator(".step-times[data-steps='2'] .step-row")
    assert steps.evaluate_all("rows => rows.map(r => r.dataset.step)") == ["1", "2"]
    want = {e["name"]: e["dur"] for e in events if e.get("name", "").startswith("ProfilerStep#")}
    durs = steps.evaluate_all("rows => rows.map(r => Number(r.dataset.dur))")
    assert durs == pytest.approx([want["ProfilerStep#1"], want["ProfilerStep#2"]], abs=1e-3)

    # Zoom to the second step, then select its first aten::linear.
    before = _dataset(timeline)["range"]
    steps.nth(1).click()
    page.wait_for_function(
        "old => document.querySelector('.timeline').dataset.range !== old", arg=before, timeout=WAIT_MS
    )
    start = min(e["ts"] for e in events if "ts" in e)
    step2 = next(e for e in events if e.get("name") == "ProfilerStep#2")
    linear = min(
        (
            e
            for e in events
            if e.get("name") == "aten::linear" and step2["ts"] <= e["ts"] <= step2["ts"] + step2["dur"]
        ),
        key=lambda e: e["ts"],
    )
    index = page.evaluate(
        "ts => { const d = document.querySelector('.timeline').timeline.data;"
        " for (let i = 0; i < d.n; i++)"
        "   if (d.names[d.name[i]] === 'aten::linear' && Math.abs(d.ts[i] - ts) < 0.01) return i;"
        " return -1; }",
        linear["ts"] - start,
    )
    assert index >= 0
    details = _select(page, timeline, index)
    assert details["name"] == "aten::linear"
    assert float(details["dur"]) == pytest.approx(linear["dur"], abs=1e-3)
    args = page.locator(".args-table th").all_text_contents()
    assert set(linear["args"]) <= set(args)
    # Wheel zoom narrows the range around the pointer.
    lo, hi = (float(x) for x in _dataset(timeline)["range"].split(","))
    box = timeline.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 40)
    page.mouse.wheel(0, -400)
    page.wait_for_function(
        "span => { const [a, b] = document.querySelector('.timeline').dataset.range.split(',').map(Number);"
        " return b - a < span * 0.7; }",
        arg=hi - lo,
        timeout=WAIT_MS,
    )
