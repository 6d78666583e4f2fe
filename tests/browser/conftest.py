"""Real-browser test fixtures: headless Chromium through Playwright, the real tbkit server in-process.

* ``browser`` (session): the system Chromium (:mod:`tools.chromium`) launched by Playwright
  with the flags of docs (FRONTEND.md "Testing in a real browser"); Playwright gives every launch
  a fresh temporary ``--user-data-dir``. Skips when Playwright or Chromium is missing, unless
  ``TBKIT_REQUIRE_BROWSER=1`` (CI), which turns the skip into a failure.
* ``page``: a new browser context (own storage) at 1280x720 whose requests may go to
  127.0.0.1 only (any other host is aborted and recorded); page errors, console errors and
  off-host requests fail the test at teardown. A screenshot is saved under
  ``test-artifacts/screenshots/`` after every test (``-FAILED`` in the name when it failed).
* ``serve``: a factory starting the real tbkit server on 127.0.0.1 port 0 in a thread of this
  process over a logdir, returning once its first load is done (``wait=False``: at once);
  every server started is closed at teardown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tools import chromium

ALLOWED_HOSTS = {"127.0.0.1"}
LOCAL_SCHEMES = {"data", "blob", "about"}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 720}


def _unavailable(reason: str) -> None:
    """Skip, or fail when the environment demands a browser (``TBKIT_REQUIRE_BROWSER=1``)."""
    if os.environ.get("TBKIT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (TBKIT_REQUIRE_BROWSER=1 requires the browser tests to run)", pytrace=False)
    pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Remember each phase's report on the item, so fixtures can see whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """The system Chromium, headless, launched once per session."""
    reason = chromium.missing()
    if reason is not None:
        _unavailable(reason)
    with chromium.launched() as browser:
        yield browser


@dataclass
class PageProblems:
    """What went wrong on a page: uncaught errors, console errors and requests off 127.0.0.1."""

    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)

    def messages(self) -> list[str]:
        """Every problem, one line each."""
        return (
            [f"page error: {m}" for m in self.page_errors]
            + [f"console error: {m}" for m in self.console_errors]
            + [f"request off 127.0.0.1: {u}" for u in self.foreign_requests]
        )

    def check(self) -> None:
        """Fail now if anything went wrong so far."""
        problems = self.messages()
        assert not problems, "\n".join(problems)


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in ALLOWED_HOSTS


def _artifact_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.split("/")[-1]).strip("_")[:150]


@dataclass
class Served:
    """A running tbkit server over one logdir."""

    handle: Any
    logdir: Path

    @property
    def url(self) -> str:
        """The base URL on 127.0.0.1 (the handle says ``localhost``), without a trailing slash."""
        prefix = urlsplit(str(self.handle.url)).path.rstrip("/")
        return f"http://127.0.0.1:{self.handle.port}{prefix}"


def _start_server(
    logdir: Path, reload_interval: float, logdirs: list[tuple[str, str]] | None = None, **options: Any
) -> Any:
    """The real server, as ``tbkit serve`` builds it, on 127.0.0.1 port 0 in a thread.

    ``logdirs`` (``(name, path)`` pairs, as ``--logdir_spec``) replaces ``logdir`` when given.
    """
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    provider = MultiLogdirProvider(logdirs or [("", str(logdir))])
    return start(provider, host="127.0.0.1", port=0, reload_interval=reload_interval, **options)


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """A factory: ``serve(logdir, reload_interval=0, wait=True)`` starts the tbkit server in this process.

    ``logdirs=[(name, path), ...]`` serves those logdirs instead of ``logdir`` (``--logdir_spec``).
    """
    started: list[Any] = []

    def start(
        logdir: Path,
        reload_interval: float = 0,
        *,
        wait: bool = True,
        logdirs: list[tuple[str, str]] | None = None,
        **options: Any,
    ) -> Served:
        handle = _start_server(Path(logdir), reload_interval, logdirs, **options)
        started.append(handle)
        assert handle.host == "127.0.0.1" and handle.port > 0
        served = Served(handle, Path(logdir))
        if wait:  # runs are discovered and read in the background: let the first load finish
            from tests.browser._ui import wait_loaded

            wait_loaded(served.url)
        return served

    try:
        yield start
    finally:
        for handle in reversed(started):
            handle.close()


@pytest.fixture
def page_problems() -> PageProblems:
    """The problems the ``page`` fixture records; tests may call ``.check()`` early."""
    return PageProblems()


@pytest.fixture
def page(
    browser: Any, page_problems: PageProblems, serve: Callable[..., Served], request: pytest.FixtureRequest
) -> Iterator[Any]:
    """A fresh page in its own context; fails the test on errors or requests leaving 127.0.0.1.

    It depends on ``serve`` so that the page is closed before any server the test started.
    """
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)

    def record(url: str) -> None:
        if url not in page_problems.foreign_requests:
            page_problems.foreign_requests.append(url)

    def route(route: Any) -> None:
        url = route.request.url
        if _is_local(url):
            route.continue_()
        else:
            record(url)
            route.abort()

    def on_request(req: Any) -> None:  # also sees what routing cannot (e.g. service workers)
        if not _is_local(req.url):
            record(req.url)

    context.route("**/*", route)
    context.on("request", on_request)
    pg = context.new_page()
    pg.on("websocket", lambda ws: None if _is_local(ws.url) else record(ws.url))
    pg.on("pageerror", lambda exc: page_problems.page_errors.append(str(exc)))
    pg.on(
        "console",
        lambda msg: (
            page_problems.console_errors.append(f"{msg.text} ({msg.location.get('url', '')})")
            if msg.type == "error"
            else None
        ),
    )
    try:
        yield pg
    finally:
        call = getattr(request.node, "rep_call", None)
        failed = call is None or call.failed
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = _artifact_name(request.node.nodeid) + ("-FAILED" if failed else "") + ".png"
        try:
            pg.screenshot(path=str(ARTIFACTS / name), full_page=True)
        except Exception as exc:  # a crashed page must not hide the real failure
            print(f"screenshot failed: {exc}")
        context.close()
    page_problems.check()


@pytest.fixture(scope="session")
def demo_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tbkit's demo logdir (three runs of every kind), written once per session."""
    from tbkit.demo import write_demo_logdir

    logdir = tmp_path_factory.mktemp("demo")
    write_demo_logdir(str(logdir), steps=60)
    return logdir
