"""The custom-plugin example's dashboard in a real browser: installed from its folder alone
(examples/custom_plugin, pip-installed into a temporary directory), its tab appears and draws
the latest logged matrix of each run, with no tbkit file naming it.

The server runs in a subprocess whose PYTHONPATH holds the installed plugin (so this test
process's registry never sees it); the test stops it at teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser._ui import WAIT_MS, wait_loaded
from tests.test_examples import install_custom_plugin, with_site

pytestmark = pytest.mark.browser

MODEL = [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[50, 1, 2], [3, 40, 4], [5, 6, 30]]]  # steps 0, 1
BASELINE = [[[9, 1], [2, 8]]]

_WRITE = f"""
import sys
from tbkit_confusion import log_confusion
log_confusion(sys.argv[1] + "/model", "eval/confusion", {MODEL})
log_confusion(sys.argv[1] + "/baseline", "eval/confusion", {BASELINE})
"""

_SERVE = """
import sys
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.serve import start
handle = start(MultiLogdirProvider([("", sys.argv[1])]), host="127.0.0.1", port=0, reload_interval=0)
print(handle.port, flush=True)
sys.stdin.read()  # serve until the test closes stdin
handle.close()
"""


@pytest.fixture
def plugin_server(tmp_path: Path) -> Iterator[str]:
    """The real tbkit server, with the example plugin installed, over a logdir it wrote: its URL."""
    _, site = install_custom_plugin(tmp_path)
    env = {**os.environ, "PYTHONPATH": with_site(site)}
    logdir = tmp_path / "logdir"
    wrote = subprocess.run(
        [sys.executable, "-c", _WRITE, str(logdir)], capture_output=True, text=True, env=env, timeout=300
    )
    assert wrote.returncode == 0, wrote.stderr
    with open(tmp_path / "server.log", "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(logdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=env,
        )  # fmt: skip
    try:
        assert server.stdout is not None
        port = server.stdout.readline().strip()
        assert port.isdigit(), (tmp_path / "server.log").read_text()
        url = f"http://127.0.0.1:{port}"
        wait_loaded(url)
        yield url
    finally:
        if server.stdin is not None:
            server.stdin.close()  # the server closes itself and exits
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)


def _drawn(card) -> list[list[int]]:
    """The matrix a card shows: the cells' text, row by row (checked against their data-*)."""
    cells = card.locator("td").evaluate_all(
        "tds => tds.map(td => [+td.dataset.row, +td.dataset.col, +td.dataset.count, td.textContent])"
    )
    size = max(row for row, _, _, _ in cells) + 1
    matrix = [[0] * size for _ in range(size)]
    for row, col, count, text in cells:
        assert str(count) == text
        matrix[row][col] = int(text)
    return matrix


# plugin_server first: fixtures are torn down in reverse, so the page closes before the server
# stops (a request the page still makes, e.g. its favicon or the reload poll, would be refused).
def test_custom_plugin_tab_draws_the_latest_matrix(plugin_server, page) -> None:
    page.goto(f"{plugin_server}/")
    tab = page.locator('#tabs a.tab[data-dashboard="confusion"]')
    tab.wait_for(timeout=WAIT_MS)
    assert tab.text_content() == "Confusion"
    tab.click()
    root = page.locator('.dashboard[data-dashboard="confusion"][data-ready="1"]')
    root.wait_for(timeout=WAIT_MS)
    assert root.get_attribute("data-cards") == "2"
    model = root.locator('.confusion-card[data-run="model"][data-tag="eval/confusion"]')
    assert model.get_attribute("data-step") == "1"  # the latest step
    assert _drawn(model) == MODEL[-1]
    assert model.get_attribute("data-accuracy") == f"{(50 + 40 + 30) / sum(map(sum, MODEL[-1])):.3f}"
    baseline = root.locator('.confusion-card[data-run="baseline"]')
    assert baseline.get_attribute("data-step") == "0" and _drawn(baseline) == BASELINE[-1]
    assert page.evaluate("document.body.dataset.dashboard") == "confusion"
    page.locator(".run-item[data-run='baseline'] input[type=checkbox]").uncheck()  # the run selector
    page.locator('.dashboard[data-dashboard="confusion"][data-cards="1"]').wait_for(timeout=WAIT_MS)
    assert root.locator(".confusion-card").evaluate_all("cs => cs.map(c => c.dataset.run)") == ["model"]
