"""``tbkit serve --allow_outside_files`` (issue 14): files a run names that resolve outside the
logdir are refused unless the flag is given; through the real server and its real routes."""

from __future__ import annotations

import io
import os
import urllib.request
from pathlib import Path

from tbkit import SummaryWriter
from tbkit.cli import build_parser
from tbkit.cli.serve import serve_logdirs
from tbkit.server.serve import ServerHandle


def _logdir(tmp_path: Path) -> Path:
    """A run holding a profile trace that is a symlink to a file outside the logdir."""
    outside = tmp_path / "outside.pt.trace.json"
    outside.write_text('{"traceEvents": [{"name": "secret_op", "ph": "X", "ts": 1, "dur": 2}]}')
    run = tmp_path / "logs" / "run"
    with SummaryWriter(str(run)) as w:
        w.add_scalar("loss", 1.0, 0)
    os.symlink(outside, run / "linkedhost_7.7.pt.trace.json")
    return tmp_path / "logs"


def _traces(logdir: Path, allow: bool) -> str:
    body: list[str] = []

    def ready(handle: ServerHandle) -> None:
        handle.reloader.first_load.wait()
        url = f"http://127.0.0.1:{handle.port}/data/plugin/profile/traces"
        with urllib.request.urlopen(url, timeout=30) as response:
            body.append(response.read().decode())
        handle.close()

    serve_logdirs(
        [("", str(logdir))],
        host="127.0.0.1",
        port=0,
        reload_interval=0,
        allow_outside_files=allow,
        out=io.StringIO(),
        err=io.StringIO(),
        ready=ready,
    )
    return body[0]


def test_an_outside_trace_is_served_only_with_the_flag(tmp_path: Path) -> None:
    logdir = _logdir(tmp_path)
    assert "linkedhost" not in _traces(logdir, allow=False)
    assert "linkedhost" in _traces(logdir, allow=True)


def test_the_flag_parses_and_is_off_by_default() -> None:
    parser = build_parser()
    assert parser.parse_args(["serve", "--logdir", "x"]).allow_outside_files is False
    assert parser.parse_args(["serve", "--logdir", "x", "--allow_outside_files"]).allow_outside_files is True
