"""The output of ``tbkit.notebook.show()`` in a real browser, on a page of a notebook-like origin.

With the kernel's server reachable, the output swaps its inline view for the live UI in a
frame, which the server lets that origin embed; with the server gone, the inline view stays
and draws its charts without any server.
"""

from __future__ import annotations

import dataclasses
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tbkit
import tbkit.notebook as nb
from tests.browser._ui import WAIT_MS

pytestmark = pytest.mark.browser


@pytest.fixture
def notebook_page(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A static server on 127.0.0.1 standing in for the notebook's origin: (its folder, its URL).

    Tests name it before ``page``, so that the page closes before this server stops."""
    folder = tmp_path / "notebook"
    folder.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _logdir(root: Path) -> Path:
    for i, run in enumerate(("train", "eval")):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(20):
                w.add_scalar("loss", 1.0 / (step + 1) + i, step)
    return root


def _output(logdir: Path) -> tuple[str, nb.NotebookServer]:
    server = nb._server(str(logdir), 0, 0.0, {})
    # The browser here may only reach 127.0.0.1 (the page fixture's rule); a notebook's reaches localhost.
    local = dataclasses.replace(server, url=f"http://127.0.0.1:{server.port}/")
    page = f"<!doctype html><html><body>{nb.view_html(local, height=600)}</body></html>"
    return page, server


def test_the_live_ui_replaces_the_inline_view(notebook_page, page, tmp_path, page_problems):
    folder, origin = notebook_page
    html, _ = _output(_logdir(tmp_path / "logs"))
    (folder / "index.html").write_text(html, encoding="utf-8")
    try:
        page.goto(origin)
        page.wait_for_selector(".tbkit-notebook[data-view='live'] iframe.tbkit-live", timeout=WAIT_MS)
        live = page.frame_locator("iframe.tbkit-live")
        live.locator(".run-list .run-item").first.wait_for(timeout=WAIT_MS)  # the UI loaded in the frame
        assert live.locator(".run-list .run-item").count() == 2
    finally:
        page.goto("about:blank")  # leave before the server stops, or its frame's requests fail
        assert nb.stop() == 1


def test_the_inline_view_draws_without_a_server(notebook_page, page, tmp_path, page_problems):
    folder, origin = notebook_page
    html, _ = _output(_logdir(tmp_path / "logs"))
    assert nb.stop() == 1  # the kernel is gone: as in a notebook rendered later
    (folder / "index.html").write_text(html, encoding="utf-8")
    page.goto(origin)
    page.wait_for_selector(".tbkit-notebook[data-view='inline']", state="attached", timeout=WAIT_MS)
    inline = page.frame_locator("iframe.tbkit-inline")
    chart = inline.locator(".chart").first
    chart.wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        "() => { const f = document.querySelector('iframe.tbkit-inline');"
        " return f && f.contentDocument === null; }",
        timeout=WAIT_MS,
    )  # sandboxed without same-origin: the notebook's page cannot reach into it
    assert inline.locator(".chart").count() >= 1
    assert inline.locator(".chart[data-ready='1']").count() >= 1
    # The failed reachability probe is the expected console error of a server that is gone.
    page_problems.console_errors[:] = [
        m for m in page_problems.console_errors if "ERR_CONNECTION_REFUSED" not in m
    ]
