"""The waitress server: a real HTTP round trip on 127.0.0.1, port selection, serving a given provider."""

from __future__ import annotations

import ast
import io
import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tbkit import SummaryWriter
from tbkit.errors import TbkitError
from tbkit.provider import InMemoryProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.serve import ServerHandle, serve, start

SERVER = Path(__file__).resolve().parents[2] / "tbkit" / "server"


@pytest.mark.slow
def test_real_server_round_trip_and_clean_shutdown(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 1.5, 0)
    provider = MultiLogdirProvider([("", str(tmp_path))])
    handle = start(provider, host="127.0.0.1", port=0, reload_interval=0.0)
    try:
        assert handle.port > 0 and handle.url == f"http://localhost:{handle.port}/"
        base = f"http://127.0.0.1:{handle.port}"
        for _ in range(2000):  # bounded polling: the first load runs in the background
            state = json.load(urllib.request.urlopen(f"{base}/data/reload_state", timeout=30))
            if not state["loading"]:
                break
            time.sleep(0.01)
        with urllib.request.urlopen(f"{base}/data/runs", timeout=30) as response:
            assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
            assert [r["name"] for r in json.load(response)] == ["run"]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"{base}/static/..%2f..%2fetc/passwd", timeout=30)
        assert info.value.code == 404
    finally:
        handle.close()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", handle.port), timeout=5):
        pass  # nothing listens any more


@pytest.mark.slow
def test_taken_port_is_skipped_only_when_not_given() -> None:
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    taken = blocker.getsockname()[1]
    try:
        with pytest.raises(TbkitError, match="in use"):
            start(InMemoryProvider({}), port=taken)
        handle = start(InMemoryProvider({}), port=taken, search_port=True)
        try:
            assert handle.port != taken
        finally:
            handle.close()
    finally:
        blocker.close()


def test_close_twice_and_after_the_loop_ended_is_quiet(tmp_path) -> None:
    provider = MultiLogdirProvider([("", str(tmp_path))])
    handle = start(provider, host="127.0.0.1", port=0)
    handle.close()
    handle.close()  # the loop has closed the trigger: no EBADF from waitress
    assert handle.wait(timeout=5)


def test_serve_serves_the_provider_it_is_given() -> None:
    provider = InMemoryProvider({"train": {"loss": {"plugin": "scalars", "points": [(0, 1.0, 0.5)]}}})
    out, runs = io.StringIO(), []

    def ready(handle: ServerHandle) -> None:
        assert handle.reloader is None  # reload_interval None: a static provider is not reloaded
        with urllib.request.urlopen(f"http://127.0.0.1:{handle.port}/data/runs", timeout=30) as response:
            runs.extend(r["name"] for r in json.load(response))
        handle.close()

    assert serve(provider, host="127.0.0.1", port=0, reload_interval=None, out=out, ready=ready) == 0
    assert runs == ["train"]
    assert out.getvalue().startswith(f"tbkit serving {provider.data_location()} at http://localhost:")


def test_serve_calls_on_first_load_after_the_first_reload(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    provider = MultiLogdirProvider([("", str(tmp_path))])
    loaded: list[list[str]] = []

    def ready(handle: ServerHandle) -> None:
        handle.reloader.first_load.wait()
        handle.close()

    def first_load() -> None:
        loaded.append([run.run_name for run in provider.list_runs()])

    options = {"host": "127.0.0.1", "port": 0, "reload_interval": 0, "out": io.StringIO()}
    serve(provider, **options, ready=ready, on_first_load=first_load)
    assert loaded == [["run"]]


def test_the_server_imports_no_reader() -> None:
    """The provider is the server's only door to the data: it is given one, never builds one."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            found += [
                f"{path.name}: {n}" for n in names if n == "tbkit.reader" or n.startswith("tbkit.reader.")
            ]
    assert not found
