"""Screenshots of tbkit's UI in headless Chromium: the docs' pictures, and tbkit beside TensorBoard.

    python tools/screenshots.py                      # docs/screenshots/*.png from `tbkit demo`'s logdir
    python tools/screenshots.py --only timeseries,images
    python tools/screenshots.py --compare OUTDIR     # tbkit's and TensorBoard's views, side by side
    python tools/screenshots.py --weight             # bytes over the wire of a first page load

The docs' pictures are taken of the real server (on 127.0.0.1, a free port) over the logdir
``tbkit demo`` writes (``--logdir`` for another), at 1280x800, once each dashboard's
charts are drawn (their ``data-ready`` hooks). ``--compare`` writes a logdir of 10 runs
(``run1`` ... ``run10``: the run colours), takes tbkit's Time Series, a maximised card, a
card's value table, the static report (``tbkit report``) and a notebook output
(``tbkit.notebook``'s inline view and its live view, on a page of another origin), then the
same logdir in TensorBoard (``python -m tensorboard.main``, when installed). Every request
the browser makes off 127.0.0.1 is refused. Needs ``playwright`` and a ``chromium`` on PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import math
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "docs" / "screenshots"
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 60_000

# name -> (dashboard route, the selector that says it is drawn)
DASHBOARDS: dict[str, tuple[str, str]] = {
    "timeseries": ("timeseries", ".scalar-card .chart[data-ready='1']"),
    "scalars": ("scalars", ".scalar-card .chart[data-ready='1']"),
    "histograms": ("histograms", ".plot[data-ready='1']"),
    "distributions": ("distributions", ".plot[data-ready='1']"),
    "images": ("images", ".card[data-ready='1'] img"),
    "audio": ("audio", ".card[data-ready='1'] audio"),
    "text": ("text", ".card[data-ready='1']"),
    "hparams": ("hparams", ".parcoords[data-ready='1']"),
    "graphs": ("graphs", ".graph-view[data-ready='1']"),
    "projector": ("projector", ".pj-plot[data-ready='1']"),
    "pr_curves": ("pr_curves", ".plot[data-ready='1']"),
    "mesh": ("mesh", ".plot[data-ready='1']"),
    "custom_scalars": ("custom_scalars", ".custom-chart .chart[data-ready='1']"),
    "profile": ("profile", ".timeline[data-ready='1']"),
    "timeseries-dark": ("timeseries", ".scalar-card .chart[data-ready='1']"),
}


# Pictures besides one per dashboard.
EXTRAS = ("maximised", "scalars-groups", "report")

# ------------------------------------------------------------------------------ servers


@contextlib.contextmanager
def tbkit_server(logdir: Path) -> Iterator[str]:
    """The real tbkit server over ``logdir`` on 127.0.0.1, after its first load: its URL."""
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    handle = start(MultiLogdirProvider([("", str(logdir))]), host="127.0.0.1", port=0, reload_interval=0.0)
    url = f"http://127.0.0.1:{handle.port}"
    try:
        deadline = time.monotonic() + WAIT_MS / 1000
        while _json(f"{url}/data/reload_state")["loading"] and time.monotonic() < deadline:
            time.sleep(0.05)
        yield url
    finally:
        handle.close()


@contextlib.contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """A plain file server of ``folder`` on 127.0.0.1 (a notebook page's stand-in origin)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def tensorboard_server(logdir: Path) -> Iterator[str | None]:
    """TensorBoard itself over ``logdir`` on 127.0.0.1 (None when it is not installed)."""
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        yield None
        return
    port = _free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--port", str(port)]
    child = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--reload_interval", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if _json(f"{url}/data/runs"):
                    break
            time.sleep(0.5)
        time.sleep(3)  # the first load of every run's data
        yield url
    finally:
        child.terminate()
        child.wait(timeout=30)


def _json(url: str) -> Any:
    import json

    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


# ------------------------------------------------------------------------------ browser


@contextlib.contextmanager
def browser_page(*, dark: bool = False) -> Iterator[Any]:
    """A Chromium page at :data:`VIEWPORT` that may reach 127.0.0.1 only."""
    sys.path.insert(0, str(ROOT))  # run as a script: the repository's tools package
    from tools import chromium

    reason = chromium.missing()
    if reason is not None:
        raise SystemExit(reason)
    with chromium.launched() as browser:
        context = browser.new_context(viewport=VIEWPORT, color_scheme="dark" if dark else "light")
        context.route("**/*", _local_only)
        yield context.new_page()
        context.close()


def _local_only(route: Any) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(route.request.url)
    if parts.scheme in ("data", "blob", "about", "file") or parts.hostname == "127.0.0.1":
        route.continue_()
    else:
        route.abort()


def _settle(page: Any, selector: str, *, count: int = 1) -> None:
    page.wait_for_selector(selector, state="attached", timeout=WAIT_MS)
    page.wait_for_function(
        "([s, n]) => document.querySelectorAll(s).length >= n", arg=[selector, count], timeout=WAIT_MS
    )
    with contextlib.suppress(Exception):
        page.wait_for_load_state("networkidle", timeout=10_000)
    page.wait_for_timeout(800)  # the last frames drawn


def _shot(page: Any, path: Path, *, full_page: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")
    print(f"wrote {path}", flush=True)
    return path


# ------------------------------------------------------------------------------ the docs' pictures


def docs_screenshots(logdir: Path, out: Path, only: set[str] | None) -> list[Path]:
    """Every dashboard of the UI over ``logdir`` into ``out/<name>.png``."""
    written = []
    with tbkit_server(logdir) as url:
        for dark in (False, True):
            names = [n for n in DASHBOARDS if n.endswith("-dark") == dark and (not only or n in only)]
            extras = [] if dark else [n for n in EXTRAS if not only or n in only]
            if not names and not extras:
                continue
            with browser_page(dark=dark) as page:
                for name in names:
                    route, selector = DASHBOARDS[name]
                    page.goto(f"{url}/#{route}")
                    try:
                        _settle(page, selector)
                    except Exception as exc:
                        print(f"{name}: not drawn ({exc.__class__.__name__}); skipped", flush=True)
                        continue
                    written.append(_shot(page, out / f"{name}.png"))
                if "maximised" in extras:
                    written += _maximised_shot(page, url, out)
                if "scalars-groups" in extras:
                    written += _groups_shot(page, url, out)
                if "report" in extras:
                    written += _report_shot(page, logdir, out)
    return written


def _report_shot(page: Any, logdir: Path, out: Path) -> list[Path]:
    """The top of ``tbkit report``'s page over ``logdir``."""
    with _step(out, "report"), tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report.html"
        command = [sys.executable, "-m", "tbkit.cli", "report", "--logdir", str(logdir), "-o", str(report)]
        subprocess.run([*command, "--no-progress"], check=True, capture_output=True)
        page.goto(report.as_uri())
        page.wait_for_function(
            "() => { const d = document.body.dataset; return d.charts && d.charts === d.chartsDrawn; }",
            timeout=WAIT_MS,
        )
        page.wait_for_timeout(500)
        return [_shot(page, out / "report.png")]
    return []


def _maximised_shot(page: Any, url: str, out: Path) -> list[Path]:
    """A maximised scalar card with its values table open, the pointer over the chart."""
    page.goto(f"{url}/#timeseries")
    with _step(out, "maximised"):
        _settle(page, ".scalar-card .chart[data-ready='1']", count=2)
        card = (
            page.locator(".scalar-card").filter(has=page.locator(".card-title", has_text="train/loss")).first
        )
        card.locator("button.table-toggle").click()
        card.locator("button.maximize").click()
        page.wait_for_function("c => c.classList.contains('maximized')", arg=card.element_handle())
        page.wait_for_timeout(800)
        box = card.locator(".chart").bounding_box()
        if box:
            page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.5)
        page.wait_for_timeout(600)
        shot = _shot(page, out / "maximised.png")
        page.mouse.move(0, 0)
        page.keyboard.press("Escape")
        return [shot]
    return []


def _groups_shot(page: Any, url: str, out: Path) -> list[Path]:
    page.goto(f"{url}/#scalars")
    _settle(page, ".scalar-card .chart[data-ready='1']")
    try:
        page.locator("details.group-runs").first.evaluate("d => { d.open = true; }")
        page.locator("select.group-mode").first.select_option("regex")
        page.locator("input.group-regex").first.fill(r"(lr)_")
        page.locator("input.group-regex").first.press("Enter")
        _settle(page, ".scalar-card[data-groups] .chart[data-ready='1']")
        page.locator("details.group-runs").first.evaluate("d => { d.open = false; }")
        page.wait_for_timeout(300)
    except Exception as exc:
        print(f"scalars-groups: not drawn ({exc.__class__.__name__}); skipped", flush=True)
        return []
    return [_shot(page, out / "scalars-groups.png")]


# ------------------------------------------------------------------------------ beside TensorBoard


def write_ten_runs(logdir: Path, prefix: str = "run", first: int = 1) -> Path:
    """``run1`` ... ``run10`` (or ``seed0`` ... ``seed9``): a loss and an accuracy each (the run colours)."""
    import numpy as np

    import tbkit

    rng = np.random.default_rng(0)
    for i in range(1, 11):
        with tbkit.SummaryWriter(str(logdir / f"{prefix}{i - 1 + first}")) as w:
            rate = 0.01 + 0.004 * i
            for step in range(0, 500, 5):
                clean = 0.1 + 2.2 * math.exp(-rate * step)
                w.add_scalar("train/loss", clean * math.exp(0.05 * rng.standard_normal()), step)
                w.add_scalar(
                    "train/accuracy", min(1.0, 1 - 0.39 * clean + 0.01 * rng.standard_normal()), step
                )
    return logdir


def compare(out: Path) -> list[Path]:
    """tbkit's reworked views and TensorBoard's of the same 10-run logdir, into ``out``."""
    import tbkit.notebook as nb

    written: list[Path] = []
    work = Path(tempfile.mkdtemp(prefix="tbkit-shots-"))
    logdir = write_ten_runs(work / "logs")
    with tbkit_server(logdir) as url, browser_page() as page:
        page.goto(f"{url}/#timeseries")
        card = ".scalar-card .chart[data-ready='1']"
        _settle(page, card, count=2)
        written.append(_shot(page, out / "tbkit-timeseries-10runs.png"))
        first = page.locator(".scalar-card").first
        with _step(out, "value table"):
            first.locator("button.table-toggle").click()
            first.locator(".value-table").wait_for(state="visible", timeout=WAIT_MS)
            box = first.locator(".chart").bounding_box()
            if box:
                page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.5)
            page.wait_for_timeout(500)
            written.append(_element_shot(first, out / "tbkit-value-table.png"))
            page.mouse.move(0, 0)
        with _step(out, "maximised card"):
            first.locator("button.maximize").click()
            page.wait_for_function("c => c.classList.contains('maximized')", arg=first.element_handle())
            page.wait_for_timeout(800)
            written.append(_shot(page, out / "tbkit-maximised-card.png"))
            page.keyboard.press("Escape")
        with _step(out, "dark"):
            page.locator("#theme-toggle").click()
            page.wait_for_timeout(800)
            written.append(_shot(page, out / "tbkit-timeseries-10runs-dark.png"))
            page.locator("#theme-toggle").click()

    with _step(out, "report"):
        report = work / "report.html"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tbkit.cli",
                "report",
                "--logdir",
                str(logdir),
                "-o",
                str(report),
                "--no-progress",
            ],
            check=True,
            capture_output=True,
        )
        with browser_page() as page:
            page.goto(report.as_uri())
            page.wait_for_timeout(1500)
            written.append(_shot(page, out / "tbkit-report.png", full_page=True))
            page.pdf(path=str(out / "tbkit-report.pdf"))
            print(f"wrote {out / 'tbkit-report.pdf'}", flush=True)
            written.append(out / "tbkit-report.pdf")

    with _step(out, "notebook"):
        folder = work / "notebook"
        folder.mkdir()
        (folder / "inline.html").write_text(_notebook_page(nb.inline_view(str(logdir), height=700)), "utf-8")
        server = nb._server(str(logdir), 0, 0.0, {})
        try:
            import dataclasses

            local = dataclasses.replace(server, url=f"http://127.0.0.1:{server.port}/")
            (folder / "live.html").write_text(_notebook_page(nb.view_html(local, height=700)), "utf-8")
            with static_server(folder) as origin, browser_page() as page:
                page.goto(origin + "inline.html")
                inline = page.frame_locator("iframe.tbkit-inline")
                inline.locator(".chart").first.wait_for(timeout=WAIT_MS)
                page.wait_for_timeout(1500)
                written.append(_shot(page, out / "tbkit-notebook-inline.png"))
                page.goto(origin + "live.html")
                page.wait_for_selector(".tbkit-notebook[data-view='live'] iframe.tbkit-live", timeout=WAIT_MS)
                live = page.frame_locator("iframe.tbkit-live")
                live.locator(".scalar-card .chart[data-ready='1']").first.wait_for(timeout=WAIT_MS)
                page.wait_for_timeout(1500)
                written.append(_shot(page, out / "tbkit-notebook-live.png"))
                page.goto("about:blank")
        finally:
            nb.stop()

    seeds = write_ten_runs(work / "seeds", "seed", 0)
    with _step(out, "seeds"), tbkit_server(seeds) as url, browser_page() as page:
        page.goto(f"{url}/#timeseries")
        _settle(page, ".scalar-card .chart[data-ready='1']", count=2)
        written.append(_shot(page, out / "tbkit-timeseries-seeds.png"))

    with tensorboard_server(logdir) as tb:
        if tb is None:
            print("TensorBoard is not installed: no TensorBoard screenshots", flush=True)
        else:
            written += _tensorboard_shots(tb, out)
    with tensorboard_server(seeds) as tb, _step(out, "TensorBoard seeds"):
        if tb is not None:
            with browser_page() as page:
                page.goto(f"{tb}/#timeseries")
                page.wait_for_selector("scalar-card", timeout=WAIT_MS)
                page.wait_for_timeout(4000)
                written.append(_shot(page, out / "tensorboard-timeseries-seeds.png"))
    return written


def _notebook_page(output: str) -> str:
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>notebook</title>"
        "<style>body{font-family:sans-serif;margin:16px;background:#fff}"
        ".cell{border-left:3px solid #42a5f5;padding:8px;margin:8px 0;background:#f7f7f7}"
        "pre{margin:0}</style></head><body>"
        "<div class='cell'><pre>In [2]: %tbkit --logdir logs</pre></div>"
        f"<div class='out'>{output}</div></body></html>"
    )


def _tensorboard_shots(url: str, out: Path) -> list[Path]:
    written: list[Path] = []
    with browser_page() as page:
        page.goto(f"{url}/#timeseries")
        with _step(out, "TensorBoard time series"):
            page.wait_for_selector("canvas, svg.line-chart, line-chart", timeout=WAIT_MS)
            page.wait_for_timeout(4000)
            written.append(_shot(page, out / "tensorboard-timeseries-10runs.png"))
        with _step(out, "TensorBoard tooltip"):
            chart = page.locator("scalar-card").first
            box = chart.bounding_box()
            if box:
                page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.5)
            page.wait_for_timeout(800)
            written.append(_shot(page, out / "tensorboard-tooltip.png"))
            page.mouse.move(0, 0)
        with _step(out, "TensorBoard full-size card"):
            button = page.locator("scalar-card").first.locator(
                "button[aria-label*='full' i], button[title*='full' i]"
            )
            button.first.click(timeout=5000)
            page.wait_for_timeout(1500)
            written.append(_shot(page, out / "tensorboard-fullsize-card.png"))
        with _step(out, "TensorBoard dark"):
            page.emulate_media(color_scheme="dark")
            toggle = page.locator("button[aria-label*='dark' i], button[title*='dark' i]")
            if toggle.count():
                toggle.first.click(timeout=5000)  # its theme button: it does not follow the system's
                menu = page.locator("[role=menuitem]", has_text=re.compile("dark", re.I))
                if menu.count():
                    menu.first.click(timeout=5000)
            page.wait_for_timeout(1000)
            written.append(_shot(page, out / "tensorboard-timeseries-dark.png"))
        page.goto(f"{url}/#scalars")
        with _step(out, "TensorBoard scalars"):
            page.wait_for_timeout(4000)
            written.append(_shot(page, out / "tensorboard-scalars.png"))
    return written


def _element_shot(locator: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(path), animations="disabled")
    print(f"wrote {path}", flush=True)
    return path


@contextlib.contextmanager
def _step(out: Path, what: str) -> Iterator[None]:
    """Run one capture; a failure is printed and the others go on."""
    try:
        yield
    except Exception as exc:
        print(f"{what}: failed ({exc.__class__.__name__}: {str(exc).splitlines()[0][:160]})", flush=True)


# ------------------------------------------------------------------------------ page weight


def page_weight(logdir: Path, dashboard: str = "timeseries") -> dict[str, int]:
    """Bytes over the wire of a first load of ``dashboard`` (the cache empty), and the body bytes.

    Measured from Chromium's own accounting (``encodedDataLength`` of every response, headers
    included, via the DevTools protocol), so a compressed answer counts compressed.
    """
    with tbkit_server(logdir) as url, browser_page() as page:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        wire: dict[str, int] = {}
        urls: dict[str, str] = {}
        cdp.on("Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"]))
        cdp.on(
            "Network.loadingFinished", lambda e: wire.__setitem__(e["requestId"], int(e["encodedDataLength"]))
        )
        page.goto(f"{url}/#{dashboard}")
        _settle(page, DASHBOARDS[dashboard][1])
        page.wait_for_timeout(2000)
        body = page.evaluate(
            "() => performance.getEntriesByType('resource')"
            ".concat(performance.getEntriesByType('navigation'))"
            ".reduce((n, e) => n + (e.decodedBodySize || 0), 0)"
        )
        plotly = sum(n for rid, n in wire.items() if urls.get(rid, "").endswith("plotly.min.js"))
        return {
            "requests": len(wire),
            "wire_bytes": sum(wire.values()),
            "decoded_bytes": int(body),
            "plotly_wire": plotly,
        }


def _demo_logdir(given: str | None) -> Path:
    if given:
        return Path(given)
    from tbkit.cli.demo import write_demo_logdir

    logdir = Path(tempfile.mkdtemp(prefix="tbkit-demo-"))
    write_demo_logdir(str(logdir))
    return logdir


def main(argv: list[str] | None = None) -> int:
    """Run the command line above; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", help="the logdir to photograph (default: a new `tbkit demo` logdir)")
    parser.add_argument(
        "--out", default=str(SHOTS), help="where the docs' pictures go (default: docs/screenshots)"
    )
    parser.add_argument(
        "--only",
        help="comma-separated picture names (default: all): " + ",".join([*DASHBOARDS, *EXTRAS]),
    )
    parser.add_argument(
        "--compare", metavar="OUTDIR", help="tbkit's reworked views beside TensorBoard's, into OUTDIR"
    )
    parser.add_argument("--weight", action="store_true", help="print the bytes of a first page load")
    args = parser.parse_args(argv)
    if args.weight:
        logdir = _demo_logdir(args.logdir)
        for dashboard in ("timeseries", "histograms"):
            figures = page_weight(logdir, dashboard)
            print(dashboard, " ".join(f"{k}={v}" for k, v in figures.items()), flush=True)
        return 0
    if args.compare:
        compare(Path(args.compare))
        return 0
    only = {n.strip() for n in args.only.split(",")} if args.only else None
    docs_screenshots(_demo_logdir(args.logdir), Path(args.out), only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
