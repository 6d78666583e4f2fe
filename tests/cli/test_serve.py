"""``tbkit serve``: help, usage and one-line errors; parsing logdirs and samples; logdir warnings."""

from __future__ import annotations

import io
import json
import urllib.request
from pathlib import Path

import pytest

from tbkit import SummaryWriter
from tbkit.cli import main
from tbkit.cli.serve import (
    empty_logdir_warnings,
    logdir_warnings,
    parse_logdirs,
    parse_samples_per_plugin,
    serve_logdirs,
)
from tbkit.errors import InvalidArgumentError
from tbkit.server.serve import ServerHandle
from tests.cli._logdirs import run_tbkit


def test_serve_help_lists_tensorboards_flags() -> None:
    result = run_tbkit("serve", "--help")
    assert result.returncode == 0
    for flag in [
        "--logdir",
        "--logdir_spec",
        "--port",
        "--host",
        "--bind_all",
        "--reload_interval",
        "--samples_per_plugin",
        "--path_prefix",
        "--window_title",
        "--purge_orphaned_data",
    ]:
        assert flag in result.stdout


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["serve", "--logdir", "x", "--port", "99999"])
    assert info.value.code == 2


def test_bad_values_exit_1_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--logdir", str(tmp_path), "--samples_per_plugin", "scalars=lots"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tbkit: error:") and err.count("\n") == 1
    assert main(["serve", "--logdir", str(tmp_path), "--host", "127.0.0.1", "--bind_all"]) == 1


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

    assert (
        serve_logdirs(logdirs, host="127.0.0.1", port=0, reload_interval=0, out=out, err=err, ready=ready)
        == 0
    )
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

    serve_logdirs(
        [("", str(tmp_path))],
        host="127.0.0.1",
        port=0,
        reload_interval=0,
        out=io.StringIO(),
        err=err,
        ready=ready,
    )
    assert err.getvalue() == ""


def test_allowed_hosts_reach_the_server(tmp_path: Path) -> None:
    import argparse
    import http.client

    from tbkit.cli.serve import add_server_flags

    parser = argparse.ArgumentParser()
    add_server_flags(parser)
    args = parser.parse_args(["--allowed_hosts", "tb.example.org, proxy.example.org"])
    assert args.allowed_hosts == "tb.example.org, proxy.example.org"
    statuses: dict[str, int] = {}

    def ready(handle: ServerHandle) -> None:
        for host in ("proxy.example.org", "elsewhere.example.org", "localhost"):
            conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=30)
            conn.request("GET", "/data/runs", headers={"Host": host})
            statuses[host] = conn.getresponse().status
            conn.close()
        handle.close()

    names = ["tb.example.org", "proxy.example.org"]
    out, err = io.StringIO(), io.StringIO()
    serve_logdirs(
        [("", str(tmp_path))], port=0, reload_interval=0, allowed_hosts=names, out=out, err=err, ready=ready
    )
    assert statuses == {"proxy.example.org": 200, "elsewhere.example.org": 403, "localhost": 200}
