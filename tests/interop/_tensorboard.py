"""The real ``tensorboard`` server for the interop tests: started on 127.0.0.1, polled, stopped."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class Server:
    """A running TensorBoard: its base URL and the logdir it serves."""

    url: str
    logdir: Path

    def get(self, route: str, **params: Any) -> bytes:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{route}{query}", timeout=30) as response:
            return response.read()

    def json(self, route: str, **params: Any) -> Any:
        return json.loads(self.get(route, **params))

    def post(self, route: str, body: dict) -> Any:
        request = urllib.request.Request(
            f"{self.url}{route}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-XSRF-Protected": "1"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def _port_from(log: Path) -> int | None:
    match = re.search(r"TensorBoard \S+ at http://127\.0\.0\.1:(\d+)/", log.read_text(errors="replace"))
    return int(match.group(1)) if match else None


@contextlib.contextmanager
def running_tensorboard(logdir: Path, log: Path, loaded: Callable[[Server], bool]) -> Iterator[Server]:
    """TensorBoard (its default loader) serving ``logdir`` until ``loaded(server)``; stopped on exit.

    Its output goes to ``log``; the port is the one the OS picks (``--port 0``).
    """
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1"]
    with open(log, "wb") as sink:
        process = subprocess.Popen([*command, "--port", "0"], stdout=sink, stderr=subprocess.STDOUT, env=env)
    try:
        port = None
        for _ in range(600):  # bounded: up to about two minutes for TensorBoard to start
            port = _port_from(log)
            if port is not None or process.poll() is not None:
                break
            time.sleep(0.2)
        assert port is not None, f"TensorBoard did not start: {log.read_text(errors='replace')[-3000:]}"
        served = Server(f"http://127.0.0.1:{port}", logdir)
        for _ in range(240):  # bounded: up to about a minute for the loader's first pass
            try:
                if loaded(served):
                    break
            except OSError:
                pass  # not answering yet, or a run or tag not loaded yet (HTTP 4xx)
            assert process.poll() is None, log.read_text(errors="replace")[-3000:]
            time.sleep(0.25)
        else:
            pytest.fail(f"TensorBoard did not load {logdir} in time")
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
