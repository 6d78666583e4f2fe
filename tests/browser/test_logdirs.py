"""The sidebar names the logdir(s) served, as plain text, with the full path in a tooltip."""

from __future__ import annotations

from pathlib import Path

import pytest

import tbkit
from tests.browser._ui import WAIT_MS, open_dashboard

pytestmark = pytest.mark.browser

IMG = '<img src=x onerror="window.__xss=1">'


def _write_run(logdir: Path) -> Path:
    with tbkit.SummaryWriter(str(logdir / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    return logdir


def _lines(page) -> list[dict[str, str]]:
    return page.locator(".logdirs .logdir").evaluate_all(
        "els => els.map(e => ({text: e.textContent, title: e.title, ...e.dataset}))"
    )


def test_one_logdir_is_shown_with_its_full_path_in_the_tooltip(page, serve, tmp_path):
    logdir = _write_run(tmp_path / "logs")
    server = serve(logdir)
    open_dashboard(page, server.url, "timeseries")
    page.locator(".sidebar .logdirs").wait_for(timeout=WAIT_MS)
    assert page.locator(".logdirs .logdir-label").inner_text() == "Logdir"
    [line] = _lines(page)
    assert line["title"] == line["path"] == str(logdir) and line["name"] == ""
    text = line["text"]
    assert text == str(logdir) or (text.startswith("…") and str(logdir).endswith(text[1:]))
    assert text.endswith("/logs")


def test_named_logdirs_are_listed_as_text(page, serve, tmp_path):
    first = _write_run(tmp_path / "a")
    second = _write_run(tmp_path / IMG)
    served = [("base", str(first)), (IMG, str(second))]
    server = serve(first, logdirs=served)
    open_dashboard(page, server.url, "timeseries")
    block = page.locator(".sidebar .logdirs[data-count='2']")
    block.wait_for(timeout=WAIT_MS)
    assert block.locator(".logdir-label").inner_text() == "Logdirs"
    lines = _lines(page)
    assert [(line["name"], line["path"]) for line in lines] == served
    assert [line["title"] for line in lines] == [f"{n}: {p}" for n, p in served]
    assert lines[1]["text"].startswith(IMG + ": ")
    assert block.locator("img").count() == 0  # the name and the path stayed text
    assert page.evaluate("typeof window.__xss") == "undefined"
    page.locator(".run-item[data-run='base/run']").wait_for(timeout=WAIT_MS)
