"""The waitress server: a real HTTP round trip on 127.0.0.1, port selection, flag parsing."""

from __future__ import annotations

import io
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
from tbkit.server.serve import (
    ServerHandle,
    empty_logdir_warnings,
    logdir_warnings,
    parse_logdirs,
    parse_samples_per_plugin,
    serve,
    start,
)


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


def test_logdir_warnings_name_missing_and_file_logdirs(tmp_path: Path) -> None:
    afile = tmp_path / "events.txt"
    afile.write_text("not a directory")
    missing = tmp_path / "nope"
    found = logdir_warnings(
        [("", str(tmp_path)), ("x", str(missing)), ("", str(afile)), ("", "s3://bucket/logs")]
    )
    assert [path for path, _ in found] == [str(missing), str(afile)]
    assert (
        found[0][1] == f"logdir x:{missing} does not exist; serving anyway (runs appear once it is created)"
    )
    assert found[1][1] == f"logdir {afile} is a file, not a directory; serving anyway"
    assert logdir_warnings([("", f"file://{missing}")])[0][0] == f"file://{missing}"


def test_empty_logdir_warnings_skip_the_paths_already_warned_about() -> None:
    assert empty_logdir_warnings([("", "/a"), ("b", "/b")], skip={"/a"}) == [
        "no event files found in logdir b:/b; serving anyway (runs appear as they are written)"
    ]


def test_multi_provider_lists_the_logdirs_without_runs(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "full" / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    (tmp_path / "empty").mkdir()
    logdirs = [("full", str(tmp_path / "full")), ("empty", str(tmp_path / "empty"))]
    provider = MultiLogdirProvider(logdirs)
    assert provider.empty_logdirs() == logdirs  # nothing discovered yet
    provider.reload()
    assert provider.empty_logdirs() == [logdirs[1]]


def test_serve_warns_once_per_bad_logdir_and_still_serves(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "good" / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    (tmp_path / "empty").mkdir()
    (tmp_path / "afile").write_text("x")
    logdirs = [(name, str(tmp_path / name)) for name in ("good", "empty", "afile", "missing")]
    out, err, runs = io.StringIO(), io.StringIO(), []

    def ready(handle: ServerHandle) -> None:
        handle.reloader.first_load.wait()  # set once the first load and its warnings are done
        with urllib.request.urlopen(f"http://127.0.0.1:{handle.port}/data/runs", timeout=30) as response:
            runs.extend(r["name"] for r in json.load(response))
        handle.close()

    assert serve(logdirs, host="127.0.0.1", port=0, reload_interval=0, out=out, err=err, ready=ready) == 0
    lines = err.getvalue().splitlines()
    assert lines == [
        f"tbkit: warning: logdir afile:{tmp_path / 'afile'} is a file, not a directory; serving anyway",
        f"tbkit: warning: logdir missing:{tmp_path / 'missing'} does not exist; serving anyway"
        " (runs appear once it is created)",
        f"tbkit: warning: no event files found in logdir empty:{tmp_path / 'empty'}; serving anyway"
        " (runs appear as they are written)",
    ]
    assert "good/run" in runs  # served all the same
    assert "tbkit serving" in out.getvalue()


def test_serve_is_quiet_about_a_logdir_with_runs(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    err = io.StringIO()

    def ready(handle: ServerHandle) -> None:
        handle.reloader.first_load.wait()
        handle.close()

    serve(
        [("", str(tmp_path))],
        host="127.0.0.1",
        port=0,
        reload_interval=0,
        out=io.StringIO(),
        err=err,
        ready=ready,
    )
    assert err.getvalue() == ""
