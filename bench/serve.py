"""Serving benchmark: ``tbkit serve`` against ``tensorboard --logdir`` on a big logdir.

The logdir is bench/read.py's L (20 runs x 25 tags x 20,000 steps, 10M scalars; written with
tbkit's ``SummaryWriter`` and cached) or, with ``--small``, its S (4 runs x 10 tags x 25,000
steps). Each server runs as a subprocess on 127.0.0.1 in its own process group; TensorBoard with
its defaults (the fast loader, i.e. the installed Rust ``tensorboard_data_server`` as a child
process). Each is started three times, one after the other:

1. HTTP: seconds from process start until every run and scalar tag is listed
   (``/data/runs`` and ``/data/plugin/scalars/tags``), then until one tag's data for every run is
   served up to the last step (TensorBoard: ``POST /data/plugin/scalars/scalars_multirun``;
   tbkit: ``GET /data/plugin/scalars/scalars?tag=&runs=``); then the request alone: the median
   of five such requests, each for a tag not asked before (so nothing is cached).
2. Browser (headless Chromium at 1280x720): once every run and tag is listed over HTTP (as in
   1; tbkit lists run names before it has read them), the page is opened; seconds until the
   first scalar chart's lines are drawn, and the page's JS heap (CDP ``Runtime.getHeapUsage``,
   main thread). TensorBoard draws with WebGL in a worker, so both are judged by the same
   pixel rule: screenshots of the first scalar chart's canvas (the viewport clipped to it) are
   polled until at least ``MIN_PIXELS`` pixels carry one of the runs' colours (tbkit also waits
   for the chart's ``data-ready="1"``).
3. Late runs: a page is opened as soon as the server answers HTTP, before every run and tag is
   listed; do the missing ones appear by themselves, without a reload, within ``--late-wait``
   seconds (the page's run list shows every run and, for tbkit, the first chart every run)?

``--tools tbkit,tensorboard,tensorboard_notf`` adds TensorBoard started with ``import tensorflow``
failing, so that it runs on its TensorFlow-free stub, as on a machine without TensorFlow (with
TensorFlow installed, TensorBoard imports it, which dominates its RSS and start-up time).

Peak RSS is the sum over the server's process tree (TensorBoard: its own process plus its data
server) of each process's ``VmHWM``, polled from /proc, the largest over the three starts.

Dashboards: ``--dashboards hparams,graphs,...`` also runs the dashboard benchmarks of
``bench/dashboards/<name>.py`` (each writes its own logdir and reports seconds against its
target); ``--dashboards-only`` skips the big-logdir comparison.

At scale, ``--case``: ``runs1000`` (1,000 runs x 10 tags x 100 steps) and ``tags10k`` (1 run x
10,000 tags x 100 steps), both written here with tbkit's ``SummaryWriter`` and cached. On every
case the page start also records the longest main-thread task (a ``PerformanceObserver`` for
``longtask``, installed before the page's own scripts) from opening the page until one second
after the first chart was drawn.

Usage: ``python bench/serve.py [--small | --case L|S|runs1000|tags10k]
[--tools tbkit,tensorboard,tensorboard_notf] [--no-browser] [--no-late] [--open-page listed|served]
[--cache DIR] [--late-wait SECS]
[--dashboards NAMES] [--dashboards-only]``
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

TOOLS = ["tbkit", "tensorboard"]
EXTRA_TOOLS = ["tensorboard_notf"]  # TensorBoard with TensorFlow hidden (its TF-free stub), as without TF
LABELS = {"tbkit": "tbkit", "tensorboard": "TensorBoard", "tensorboard_notf": "TB, no TF"}
# TensorBoard started with ``import tensorflow`` failing, so it runs on its TF-free stub.
TB_NOTF = (
    "import sys; sys.modules['tensorflow'] = None; sys.argv[0] = 'tensorboard';"
    " from tensorboard.main import run_main; run_main()"
)
VIEWPORT = {"width": 1280, "height": 720}
MIN_PIXELS = 150  # pixels of a run colour in the first chart's canvas that count as "lines drawn"
COLOR_TOLERANCE = 12  # per channel
# TensorBoard's figures from the issue (this machine class), for reference.
TB_REFERENCE = {"list_s": 2.5, "chart_s": 2.4, "rss_mb": 195.0, "heap_mb": 63.0}


def _chromium(parser: argparse.ArgumentParser) -> Any:
    """tools/chromium.py (the browser flags and launch the browser tests use too); a usage error
    when Chromium or Playwright is missing."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tools import chromium

    reason = chromium.missing()
    if reason is not None:
        parser.error(f"{reason}; or pass --no-browser")
    return chromium


def _bench_read() -> Any:
    """bench/read.py as a module (its logdir generator and sizes)."""
    path = Path(__file__).with_name("read.py")
    spec = importlib.util.spec_from_file_location("tbkit_bench_read", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCALE_CASES = {
    "runs1000": {"runs": 1000, "tags": 10, "steps": 100},
    "tags10k": {"runs": 1, "tags": 10_000, "steps": 100},
}


def ensure_scale_logdir(cache: Path, case: str) -> Path:
    """The logdir of a ``SCALE_CASES`` case under ``cache`` (written as bench/read.py writes its own)."""
    spec = SCALE_CASES[case]
    logdir = cache / f"serve-{case}-{spec['runs']}x{spec['tags']}x{spec['steps']}"
    return _bench_read().write_scalar_logdir(logdir, spec, run_name="run_{:04d}")


# -- processes -----------------------------------------------------------------------------------


def free_port() -> int:
    """A port the OS just handed out on 127.0.0.1 (closed again; the server binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _vm_hwm_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids.extend(int(k) for k in f.read().split())
    except OSError:
        pass
    return kids


class TreeRss:
    """Polls a process tree's per-process peak RSS (VmHWM) until stopped."""

    def __init__(self, root: int, interval: float = 0.1) -> None:
        self.root = root
        self.interval = interval
        self.peaks: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        todo = [self.root]
        while todo:
            pid = todo.pop()
            hwm = _vm_hwm_kb(pid)
            if hwm is not None:
                self.peaks[pid] = max(self.peaks.get(pid, 0), hwm)
                if pid not in self.names:
                    try:
                        with open(f"/proc/{pid}/comm") as f:
                            self.names[pid] = f.read().strip()
                    except OSError:
                        self.names[pid] = str(pid)
            todo.extend(_children(pid))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._poll()
            self._stop.wait(self.interval)

    def stop(self) -> float:
        """Stop polling (after one last poll); the sum of the per-process peaks, in MB."""
        self._poll()
        self._stop.set()
        self._thread.join()
        return sum(self.peaks.values()) / 1024

    def breakdown(self) -> str:
        """Each process's peak, e.g. ``tensorboard 700 + server 90``, MB."""
        return " + ".join(f"{self.names.get(p, p)} {kb / 1024:.0f}" for p, kb in sorted(self.peaks.items()))


class Server:
    """One server subprocess in its own process group, with its tree's RSS polled."""

    def __init__(self, tool: str, logdir: Path, workdir: Path) -> None:
        self.tool = tool
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        if tool == "tbkit":
            cmd = [sys.executable, "-m", "tbkit.cli", "serve"]
        else:
            cmd = [shutil.which("tensorboard") or "tensorboard"]
        if tool == "tensorboard_notf":
            cmd = [sys.executable, "-c", TB_NOTF]
        cmd += ["--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(self.port)]
        self.log = open(workdir / f"{tool}-{self.port}.log", "wb")  # noqa: SIM115 (closed in stop)
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.rss = TreeRss(self.proc.pid)

    def elapsed(self) -> float:
        """Seconds since the process was started."""
        return time.monotonic() - self.t0

    def alive(self) -> None:
        """Raise if the server has exited."""
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.tool} exited with code {self.proc.returncode}; see {self.log.name}")

    def stop(self) -> float:
        """Stop the whole process group; the tree's peak RSS in MB."""
        rss = self.rss.stop()
        self.rss_breakdown = self.rss.breakdown()
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self.log.close()
        return rss


# -- HTTP ----------------------------------------------------------------------------------------


def get_json(url: str, data: bytes | None = None, timeout: float = 30) -> Any:
    """GET (or POST ``data``) and decode JSON; None when the server is not answering yet."""
    try:
        with urllib.request.urlopen(url, data=data, timeout=timeout) as resp:
            return json.load(resp)
    except (urllib.error.URLError, ConnectionError, OSError, json.JSONDecodeError):
        return None


def listing(server: Server) -> tuple[list[str], int]:
    """The runs listed and the number of (run, scalar tag) pairs listed."""
    runs = get_json(server.url + "data/runs") or []
    names = [r["name"] if isinstance(r, dict) else r for r in runs]
    tags = get_json(server.url + "data/plugin/scalars/tags") or {}
    return names, sum(len(t) for t in tags.values())


def _tag_request(server: Server, tag: str, runs: list[str]) -> tuple[str, bytes | None]:
    """The URL and body of the request for ``tag``'s data of every run in ``runs``."""
    if server.tool.startswith("tensorboard"):
        body = urllib.parse.urlencode([("tag", tag)] + [("runs", r) for r in runs]).encode()
        return server.url + "data/plugin/scalars/scalars_multirun", body
    query = urllib.parse.urlencode({"tag": tag, "runs": ",".join(runs)})
    return server.url + "data/plugin/scalars/scalars?" + query, None


def _last_steps(server: Server, data: Any) -> dict[str, int]:
    if not isinstance(data, dict):
        return {}
    if server.tool.startswith("tensorboard"):
        return {run: int(points[-1][1]) for run, points in data.items() if points}
    return {run: int(d["step"][-1]) for run, d in data.items() if isinstance(d, dict) and d.get("step")}


def tag_data(server: Server, tag: str, runs: list[str]) -> dict[str, int]:
    """For each run, the last step served for ``tag``."""
    url, body = _tag_request(server, tag, runs)
    return _last_steps(server, get_json(url, data=body))


def timed_tag_data(server: Server, tag: str, runs: list[str]) -> tuple[float, dict[str, int]]:
    """Seconds until the whole answer for ``tag`` has arrived (not parsed), and the last steps."""
    url, body = _tag_request(server, tag, runs)
    start = time.monotonic()
    with urllib.request.urlopen(url, data=body, timeout=60) as resp:
        raw = resp.read()
    seconds = time.monotonic() - start
    return seconds, _last_steps(server, json.loads(raw))


def wait_for(
    what: str, server: Server, check: Callable[[], bool], timeout: float, pause: float = 0.05
) -> float:
    """Poll ``check`` until true; seconds since the server's start. Raises on timeout or exit."""
    deadline = time.monotonic() + timeout
    while not check():
        server.alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{server.tool}: {what} not reached within {timeout:.0f} s")
        time.sleep(pause)
    return server.elapsed()


# -- the page ------------------------------------------------------------------------------------

PAGE = {
    "tensorboard": {
        "chart": "scalar-card line-chart canvas",
        "run_items": "runs-table .run-color-swatch",
        "colors_js": (
            "() => Array.from(document.querySelectorAll('runs-table .run-color-swatch'))"
            ".map(e => getComputedStyle(e).backgroundColor)"
        ),
    },
    "tbkit": {
        "chart": ".scalar-card canvas.chart-canvas",
        "ready_js": "() => document.querySelector('.scalar-card .chart')?.dataset.ready === '1'",
        "series_js": "() => document.querySelector('.scalar-card .chart')?.dataset.series ?? '0'",
        "run_items": ".run-list .run-item",
        "colors_js": None,  # from /data/runs
    },
}


def _page(tool: str) -> dict[str, Any]:
    return PAGE["tensorboard" if tool.startswith("tensorboard") else tool]


def _parse_color(text: str) -> tuple[int, int, int] | None:
    text = text.strip()
    m = re.fullmatch(r"#([0-9a-fA-F]{6})", text)
    if m:
        v = int(m.group(1), 16)
        return (v >> 16) & 255, (v >> 8) & 255, v & 255
    m = re.match(r"rgba?\((\d+),\s*(\d+),\s*(\d+)", text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def color_pixels(png: bytes, colors: list[tuple[int, int, int]], tolerance: int = COLOR_TOLERANCE) -> int:
    """How many pixels of the PNG are within ``tolerance`` (per channel) of one of ``colors``."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    hit = np.zeros(rgb.shape[:2], dtype=bool)
    for color in set(colors):
        hit |= (np.abs(rgb - np.array(color, dtype=np.int16)) <= tolerance).all(axis=-1)
    return int(hit.sum())


# A 1x1 PNG: color_pixels is called once on it before a page's clock starts, so that the first
# poll that finds a chart does not pay for importing Pillow (the first poll of a page that
# draws late found nothing to decode and paid it earlier: the import went to one tool only).
_BLANK_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415408d763f8ffff3f0005fe02fedccc59e70000000049454e44ae426082"
)


def run_colors(server: Server, page: Any) -> list[tuple[int, int, int]]:
    """The runs' colours as the page shows them."""
    js = _page(server.tool)["colors_js"]
    if js:
        texts = page.evaluate(js)
    else:
        texts = [r.get("color", "") for r in get_json(server.url + "data/runs") or []]
    return [c for c in (_parse_color(t) for t in texts) if c is not None]


def first_chart_drawn(server: Server, page: Any) -> int:
    """Pixels of a run colour in the first scalar chart's canvas (0 when there is none yet)."""
    chart = page.locator(_page(server.tool)["chart"]).first
    if chart.count() == 0:
        return 0
    ready = _page(server.tool).get("ready_js")
    if ready and not page.evaluate(ready):
        return 0
    colors = run_colors(server, page)
    if not colors:
        return 0
    try:  # the viewport clipped to the chart: 0.04 s against 0.1-0.17 s for an element screenshot
        box = chart.bounding_box(timeout=5000)  # (which waits for the element to be stable)
        if not box or box["width"] < 1 or box["height"] < 1:
            return 0
        png = page.screenshot(clip=box, timeout=5000, animations="disabled")
    except Exception:  # detached or zero-sized while the page lays out
        return 0
    return color_pixels(png, colors)


# Installed before the page's scripts: the longest main-thread task (ms) since the page opened.
LONGTASK_JS = """
window.__tbkitLongest = 0;
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__tbkitLongest = Math.max(window.__tbkitLongest, e.duration);
  }).observe({ type: "longtask", buffered: true });
} catch (_) { window.__tbkitLongest = -1; }
"""


def longest_task_s(page: Any) -> float | None:
    """The longest main-thread task the page's observer saw, in seconds (None: no observer)."""
    ms = page.evaluate("() => window.__tbkitLongest ?? -1")
    return None if ms is None or ms < 0 else float(ms) / 1000


def heap_mb(context: Any, page: Any) -> float:
    """The page's used JS heap (main thread), MB."""
    cdp = context.new_cdp_session(page)
    try:
        return float(cdp.send("Runtime.getHeapUsage")["usedSize"]) / 2**20
    finally:
        cdp.detach()


def page_run_count(server: Server, page: Any) -> int:
    """How many runs the page's run selector shows."""
    return int(page.locator(_page(server.tool)["run_items"]).count())


# -- the three starts ----------------------------------------------------------------------------


def measure_http(tool: str, logdir: Path, spec: dict, workdir: Path, timeout: float) -> dict[str, Any]:
    """Start 1: listing and one tag's data over HTTP."""
    server = Server(tool, logdir, workdir)
    want_pairs = spec["runs"] * spec["tags"]
    state: dict[str, Any] = {}
    try:

        def listed() -> bool:
            state["runs"], pairs = listing(server)
            return len(state["runs"]) == spec["runs"] and pairs == want_pairs

        list_s = wait_for("every run and tag listed", server, listed, timeout)
        tag = "group_0/metric_0"
        last = spec["steps"] - 1

        def served() -> bool:
            got = tag_data(server, tag, state["runs"])
            return len(got) == spec["runs"] and all(s == last for s in got.values())

        data_s = wait_for(f"{tag} served for every run", server, served, timeout)
        request_s = one_tag_requests(server, spec, state["runs"])
    finally:
        rss = server.stop()
    return {
        "list_s": list_s,
        "data_s": data_s,
        "request_s": request_s,
        "rss_mb": rss,
        "rss_tree": server.rss_breakdown,
    }


def one_tag_requests(server: Server, spec: dict, runs: list[str], count: int = 5) -> float:
    """Once everything is served: the median seconds of one request for one tag of every run.

    Each request asks for another tag (never asked before, so no answer is cached), to its
    last step for every run; timed until the whole answer has arrived (parsed afterwards).
    """
    times = []
    for t in range(1, count + 1):
        tag = f"group_{t % 3}/metric_{t % spec['tags']}"
        seconds, got = timed_tag_data(server, tag, runs)
        times.append(seconds)
        if len(got) != spec["runs"] or any(s != spec["steps"] - 1 for s in got.values()):
            raise RuntimeError(f"{server.tool}: {tag} not served to its last step for every run")
    return sorted(times)[len(times) // 2]


def measure_page(
    tool: str,
    logdir: Path,
    spec: dict,
    workdir: Path,
    timeout: float,
    browser: Any,
    open_when: str = "listed",
) -> dict[str, Any]:
    """Start 2: open the page once every run and tag is listed; first chart drawn, JS heap.

    ``open_when="served"``: only once one tag is also served to its last step for every run
    (tbkit lists tags before it has read their points; this times its page on loaded data).
    """
    server = Server(tool, logdir, workdir)
    context = None
    try:
        # "Listed" as in start 1: every run and every (run, tag) pair. tbkit names its runs before
        # reading them, so waiting for the runs alone would time its loading, not its page.
        pairs = spec["runs"] * spec["tags"]
        listed = lambda: listing(server)[1] == pairs  # noqa: E731
        wait_for("every run and tag listed", server, listed, timeout)
        if open_when == "served":  # and the data read: one tag served to its last step for every run
            runs = listing(server)[0]
            tag, last = "group_0/metric_0", spec["steps"] - 1
            served = lambda: set(tag_data(server, tag, runs).values()) == {last}  # noqa: E731
            wait_for(f"{tag} served for every run", server, served, timeout)
        color_pixels(_BLANK_PNG, [(0, 0, 0)])  # its imports (Pillow) before the clock, for every tool alike
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(LONGTASK_JS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        start = time.monotonic()
        page.goto(server.url, wait_until="commit")
        deadline = start + timeout
        pixels = 0
        while pixels < MIN_PIXELS:
            server.alive()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{tool}: first chart not drawn within {timeout:.0f} s")
            pixels = first_chart_drawn(server, page)
            if pixels < MIN_PIXELS:
                time.sleep(0.02)
        chart_s = time.monotonic() - start
        page.wait_for_timeout(1000)  # let the page settle before weighing its heap
        longest = longest_task_s(page)
        heap = heap_mb(context, page)
        page.screenshot(path=str(workdir / f"{tool}-page.png"))
    finally:
        if context is not None:
            context.close()
        rss = server.stop()
    return {
        "chart_s": chart_s,
        "longtask_s": longest,
        "heap_mb": heap,
        "rss_mb": rss,
        "rss_tree": server.rss_breakdown,
        "console_errors": errors[:5],
    }


def measure_late_runs(
    tool: str, logdir: Path, spec: dict, workdir: Path, timeout: float, wait: float, browser: Any
) -> dict[str, Any]:
    """Start 3: open a page as soon as the server answers; does what was missing appear by itself?

    "Missing" is any run or (run, scalar tag) pair not yet listed over HTTP when the page opens.
    The page has caught up when its run selector shows every run and (tbkit, whose charts
    expose it) the first scalar chart draws a series for every run.
    """
    server = Server(tool, logdir, workdir)
    context = None
    chart_js = _page(tool).get("series_js")
    try:
        answers = lambda: get_json(server.url + "data/runs") is not None  # noqa: E731
        wait_for("an HTTP answer", server, answers, timeout, 0.02)
        runs_at_open, pairs_at_open = listing(server)
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(server.url, wait_until="commit")
        opened = time.monotonic()
        shown, series = 0, None
        while time.monotonic() < opened + wait:
            server.alive()
            shown = page_run_count(server, page)
            series = page.evaluate(chart_js) if chart_js else None
            if shown == spec["runs"] and series in (None, str(spec["runs"])):
                break
            time.sleep(0.25)
        caught_up = shown == spec["runs"] and series in (None, str(spec["runs"]))
        seconds = time.monotonic() - opened if caught_up else None
    finally:
        if context is not None:
            context.close()
        rss = server.stop()
    return {
        "late_runs_at_open": len(runs_at_open),
        "late_pairs_at_open": pairs_at_open,
        "late_shown": shown,
        "late_chart_series": series,
        "late_missing": len(runs_at_open) < spec["runs"] or pairs_at_open < spec["runs"] * spec["tags"],
        "late_caught_up": caught_up,
        "late_seconds": seconds,
        "rss_mb": rss,
        "rss_tree": server.rss_breakdown,
    }


# -- report --------------------------------------------------------------------------------------


def _fmt(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.2f} {unit}" if unit == "s" else f"{value:.0f} {unit}"


def report(size: str, spec: dict, results: dict[str, dict[str, Any]], args_late_wait: float) -> None:
    """Print the table: each figure for tbkit and TensorBoard, and tbkit / TensorBoard."""
    total = spec["runs"] * spec["tags"] * spec["steps"]
    shape = f"{spec['runs']} runs x {spec['tags']} tags x {spec['steps']:,} steps"
    print(f"\nlogdir {size}: {shape} ({total:,} scalars)")
    rows = [
        ("all runs + tags listed (HTTP)", "list_s", "s"),
        ("one tag, all runs served (HTTP)", "data_s", "s"),
        ("one-tag request, all runs (median)", "request_s", "s"),
        ("first scalar chart drawn", "chart_s", "s"),
        ("longest main-thread task", "longtask_s", "s"),
        ("peak RSS, process tree", "rss_mb", "MB"),
        ("page JS heap", "heap_mb", "MB"),
    ]
    tools = [t for t in TOOLS + EXTRA_TOOLS if t in results]
    peers = [t for t in tools if t != "tbkit"]
    tk = results.get("tbkit", {})
    head = f"{'figure':<34}" + "".join(f"{LABELS[t]:>13}" for t in tools)
    head += "".join(
        f"{'tbkit/' + LABELS[t].replace('TensorBoard', 'TB'):>16}" for t in peers if "tbkit" in results
    )
    print(head + f"{'TB (issue)':>12}")
    for label, key, unit in rows:
        line = f"{label:<34}" + "".join(f"{_fmt(results[t].get(key), unit):>13}" for t in tools)
        for t in peers if "tbkit" in results else []:
            a, b = tk.get(key), results[t].get(key)
            ok = isinstance(a, float) and isinstance(b, float) and b > 0
            line += f"{(f'{a / b:.2f}' if ok else '-'):>16}"
        print(line + f"{_fmt(TB_REFERENCE.get(key) if size == 'L' else None, unit):>12}")
    for t in tools:
        tool, res = LABELS[t], results[t]
        if res.get("rss_tree"):
            print(f"peak RSS, {tool}: {res['rss_tree']} MB")
        if "late_runs_at_open" in res:
            pairs = spec["runs"] * spec["tags"]
            if not res["late_missing"]:
                verdict = "n/a (everything listed at open)"
            else:
                verdict = "yes" if res["late_caught_up"] else f"no (within {args_late_wait:.0f} s)"
            when = f" after {res['late_seconds']:.1f} s" if res.get("late_seconds") is not None else ""
            chart = f", first chart {res['late_chart_series']} series" if res["late_chart_series"] else ""
            print(
                f"late runs, {tool}: page opened with {res['late_runs_at_open']}/{spec['runs']} runs and"
                f" {res['late_pairs_at_open']}/{pairs} run-tag pairs listed; page then showed"
                f" {res['late_shown']} runs{chart}; missing ones appeared by themselves: {verdict}{when}"
            )
        for err in res.get("errors", []):
            print(f"  {tool} error: {err}")
    print("tbkit/TB below 1 = tbkit faster or smaller. Heap: main-thread JS heap (TensorBoard's WebGL")
    print("worker not included). RSS: sum of each process's VmHWM in the server's process tree.")


# -- main ----------------------------------------------------------------------------------------


def run_tool(
    tool: str, logdir: Path, spec: dict, workdir: Path, args: argparse.Namespace, browser: Any
) -> dict[str, Any]:
    """The three starts for one tool; a failed start is recorded, not fatal."""
    res: dict[str, Any] = {"errors": []}
    rss: list[tuple[float, str]] = []
    steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("http", lambda: measure_http(tool, logdir, spec, workdir, args.timeout))
    ]
    if browser is not None:
        page = lambda: measure_page(tool, logdir, spec, workdir, args.timeout, browser, args.open_page)  # noqa: E731
        steps.append(("page", page))
        late = lambda: measure_late_runs(tool, logdir, spec, workdir, args.timeout, args.late_wait, browser)  # noqa: E731
        if not args.no_late:
            steps.append(("late", late))
    for name, step in steps:
        try:
            out = step()
        except Exception as exc:
            res["errors"].append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        rss.append((out.pop("rss_mb"), out.pop("rss_tree")))
        res.update(out)
        print(f"  {tool} {name}: {json.dumps(out)}", flush=True)
    if rss:
        res["rss_mb"], res["rss_tree"] = max(rss)
    return res


def run_dashboards(names: list[str], browser: Any, workdir: Path) -> None:
    """Run each ``bench/dashboards/<name>.py`` and print its figures against their targets."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import importlib

    for name in names:
        module = importlib.import_module(f"dashboards.{name}")
        print(f"\ndashboard {name}:", flush=True)
        try:
            figures = module.measure(browser, workdir / f"dash-{name}")
        except Exception as exc:
            print(f"  failed: {type(exc).__name__}: {exc}", flush=True)
            continue
        for figure, seconds in figures.items():
            target = module.TARGETS.get(figure)
            met = "met" if target is not None and seconds <= target else "MISSED"
            verdict = "" if target is None else f" (target {target:.1f} s: {met})"
            shown = f"{seconds:7.2f} s" if seconds >= 0.1 else f"{seconds * 1000:6.1f} ms"
            print(f"  {figure:<48} {shown}{verdict}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, make the logdir, measure each server, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="bench/read.py's S logdir instead of L")
    parser.add_argument("--case", default="", help=f"L, S or one of {sorted(SCALE_CASES)} (default: L)")
    parser.add_argument("--no-late", action="store_true", help="skip the late-runs start")
    parser.add_argument(
        "--open-page",
        choices=["listed", "served"],
        default="listed",
        help="open the page once every tag is listed, or once one tag is also served to its last step",
    )
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tbkit-bench"))
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"from {TOOLS + EXTRA_TOOLS}")
    parser.add_argument("--no-browser", action="store_true", help="HTTP figures only")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for any one wait")
    parser.add_argument("--late-wait", type=float, default=75.0, help="seconds for late runs to appear")
    parser.add_argument("--dashboards", default="", help="dashboard benchmarks (bench/dashboards/*.py)")
    parser.add_argument("--dashboards-only", action="store_true", help="skip the big-logdir comparison")
    args = parser.parse_args(argv)
    dashboards = [d.strip() for d in args.dashboards.split(",") if d.strip()]
    if args.dashboards_only:
        if not dashboards:
            parser.error("--dashboards-only needs --dashboards")
        with _chromium(parser).launched() as browser:
            run_dashboards(dashboards, browser, Path(tempfile.mkdtemp(prefix="tbkit-bench-dash-")))
        return 0
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if set(tools) - set(TOOLS + EXTRA_TOOLS):
        parser.error(f"unknown tools; choose from {TOOLS + EXTRA_TOOLS}")
    bench_read = _bench_read()
    size = args.case or ("S" if args.small else "L")
    if size in SCALE_CASES:
        spec = SCALE_CASES[size]
        logdir = ensure_scale_logdir(Path(args.cache), size)
    elif size in bench_read.SIZES:
        spec = bench_read.SIZES[size]
        logdir = bench_read.ensure_logdir(Path(args.cache), size)
    else:
        parser.error(f"unknown case {size!r}")
    workdir = Path(tempfile.mkdtemp(prefix="tbkit-bench-serve-"))
    print(f"logdir {logdir}; logs and page screenshots in {workdir}", flush=True)
    results: dict[str, dict[str, Any]] = {}
    if args.no_browser:
        for tool in tools:
            results[tool] = run_tool(tool, logdir, spec, workdir, args, None)
    else:
        with _chromium(parser).launched() as browser:
            for tool in tools:
                results[tool] = run_tool(tool, logdir, spec, workdir, args, browser)
            if dashboards:
                run_dashboards(dashboards, browser, workdir)
    report(size, spec, results, args.late_wait)
    return 0


if __name__ == "__main__":
    sys.exit(main())
