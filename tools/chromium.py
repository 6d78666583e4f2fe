"""The system Chromium, headless, as tbkit's browser tests, benchmarks and screenshots drive it.

Playwright cannot download its own browser on the machines tbkit is built on, so the
system's ``chromium`` (Debian's package) is launched through Playwright for Python, with
the flags below: no sandbox (containers), no GPU, and none of the background traffic a
browser starts by itself, so that a page talks to 127.0.0.1 alone.

Usage::

    from tools import chromium

    reason = chromium.missing()
    if reason is None:
        with chromium.launched() as browser:
            page = browser.new_page()
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
from collections.abc import Iterator
from typing import Any

__all__ = ["ARGS", "executable", "launched", "missing"]

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def executable() -> str | None:
    """The system Chromium's path, or None when there is none on ``PATH``."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why Chromium cannot be launched here (Playwright or the browser absent), or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed"
    if executable() is None:
        return "no `chromium` on PATH (apt-get install -y chromium)"
    return None


@contextlib.contextmanager
def launched() -> Iterator[Any]:
    """A headless Chromium (a Playwright ``Browser``), closed on leaving the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable(), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
