"""The server's own queue warnings stay off the user's terminal (issue 16), but ``--debug`` shows them.

waitress logs ``Task queue depth is N`` (logger ``waitress.queue``) whenever a request
waits for a worker thread; a page load of many parallel fetches used to print a screenful.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tbkit import SummaryWriter

# More at once than a browser opens to one host (6): two tabs, or a notebook beside the UI.
PARALLEL = 24


def _write_logdir(root: Path) -> Path:
    for run in range(8):
        with SummaryWriter(str(root / f"run{run}")) as writer:
            for step in range(400):
                for tag in ("loss", "accuracy", "lr", "grad_norm"):
                    writer.add_scalar(f"train/{tag}", 1.0 / (step + 1) + run, step)
    return root


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    logdir = _write_logdir(tmp_path / "logs")
    env = {k: v for k, v in os.environ.items() if k != "TBKIT_PROGRESS"}
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tbkit.cli",
            "serve",
            "--logdir",
            str(logdir),
            "--port",
            "0",
            "--host",
            "127.0.0.1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        found = re.search(r"http://\S+/", line)
        assert found, f"no URL in {line!r}"
        yield found.group(0).replace("localhost", "127.0.0.1"), child
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
        child.communicate(timeout=60)


def _get(url: str) -> int:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip", "Host": "127.0.0.1"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:  # reported with its URL by the test
        return int(error.code)


def test_a_page_load_of_parallel_fetches_prints_no_queue_warnings(
    served: tuple[str, subprocess.Popen[str]],
) -> None:
    base, child = served
    import json

    with urllib.request.urlopen(base + "data/environment", timeout=60) as answer:
        static = json.loads(answer.read())["static_url"]
    deadline = time.monotonic() + 60
    while True:  # the charts below name runs: before the first load has found them they are 404s
        with urllib.request.urlopen(base + "data/reload_state", timeout=60) as answer:
            if not json.loads(answer.read())["loading"]:
                break
        assert time.monotonic() < deadline, "the server's first load did not finish"
        time.sleep(0.05)
    origin = base.split("/", 3)[:3]
    root = "/".join(origin)
    page = [
        base,
        f"{root}{static}/app.js",
        f"{root}{static}/style.css",
        f"{root}{static}/vendor/plotly.min.js",
    ]
    page += [
        base + f"data/{name}" for name in ("environment", "runs", "tags", "plugins_listing", "reload_state")
    ]
    charts = [
        base + f"data/plugin/scalars/scalars?tag=train/{tag}&runs={run}"
        for tag in ("loss", "accuracy", "lr", "grad_norm")
        for run in ("run0", "run1", "run2", "run3", "run4")
    ]
    urls = (page + charts) * 3
    for _ in range(2):  # a load and a reload
        with ThreadPoolExecutor(PARALLEL) as pool:
            statuses = dict(zip(urls, pool.map(_get, urls), strict=True))
        assert set(statuses.values()) == {200}, {u: s for u, s in statuses.items() if s != 200}
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert "Task queue depth" not in stderr, stderr
    assert "waitress" not in stderr, stderr


def test_debug_shows_the_queue_warnings(capfd: pytest.CaptureFixture[str]) -> None:
    from tbkit.cli.serve import configure_logging
    from tbkit.server.serve import quiet_server_logs

    logger = logging.getLogger("waitress.queue")
    before, root_before = logger.level, logging.getLogger().level
    try:
        logger.setLevel(logging.NOTSET)
        quiet_server_logs()
        assert not logger.isEnabledFor(logging.WARNING)
        configure_logging(debug=True)
        quiet_server_logs()  # the server starts after the command line chose its logging
        assert logger.isEnabledFor(logging.WARNING)
        logger.warning("Task queue depth is %d", 3)
        assert "Task queue depth is 3" in capfd.readouterr().err
    finally:
        logger.setLevel(before)
        root = logging.getLogger()
        root.setLevel(root_before)
        for handler in list(root.handlers):
            if getattr(handler, "_tbkit", False):
                root.removeHandler(handler)
