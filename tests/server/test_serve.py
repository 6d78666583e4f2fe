"""The waitress server: a real HTTP round trip on 127.0.0.1, port selection, flag parsing."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tbkit import SummaryWriter
from tbkit.errors import InvalidArgumentError, TbkitError
from tbkit.provider import InMemoryProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.serve import parse_logdirs, parse_samples_per_plugin, start


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


def test_parse_samples_per_plugin() -> None:
    assert parse_samples_per_plugin("scalars=500,images=all, audio = 3") == {
        "scalars": 500,
        "images": None,
        "audio": 3,
    }
    assert parse_samples_per_plugin("") == {}
    for bad in ["scalars", "scalars=x", "=3", "images=0"]:
        with pytest.raises(InvalidArgumentError):
            parse_samples_per_plugin(bad)


def test_parse_logdirs() -> None:
    assert parse_logdirs("/tmp/x") == [("", "/tmp/x")]
    assert parse_logdirs("s3://bucket/logs") == [("", "s3://bucket/logs")]
    assert parse_logdirs("/a/one,/b/two/") == [("one", "/a/one"), ("two", "/b/two/")]
    assert parse_logdirs(logdir_spec="x:/a,y:s3://b/c,/d/z") == [
        ("x", "/a"),
        ("y", "s3://b/c"),
        ("z", "/d/z"),
    ]
    assert parse_logdirs(logdir_spec="memory://m") == [("m", "memory://m")]
    for args in [{}, {"logdir": "/a", "logdir_spec": "b:/b"}, {"logdir": "/a/x,/b/x"}, {"logdir": " , "}]:
        with pytest.raises(InvalidArgumentError):
            parse_logdirs(**args)


def test_close_twice_and_after_the_loop_ended_is_quiet(tmp_path) -> None:
    provider = MultiLogdirProvider([("", str(tmp_path))])
    handle = start(provider, host="127.0.0.1", port=0)
    handle.close()
    handle.close()  # the loop has closed the trigger: no EBADF from waitress
    assert handle.wait(timeout=5)
