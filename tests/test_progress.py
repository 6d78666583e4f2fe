"""The progress bar: drawn on terminals only, in place, ending with a newline; CLI bars on a real pty."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tbkit import SummaryWriter
from tbkit._progress import Progress, format_amount


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_drawn_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TBKIT_PROGRESS", raising=False)
    tty, pipe = _Terminal(), io.StringIO()
    for stream in (tty, pipe):
        with Progress(4, "reading", unit="B", stream=stream) as bar:
            bar.advance(2)
            bar.advance(2)
    assert pipe.getvalue() == ""
    text = tty.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    assert "[" + "#" * 24 + "] 100%" in text.rsplit("\r", 1)[-1]


def test_environment_forces_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TBKIT_PROGRESS", "0")
    tty = _Terminal()
    with Progress(1, "x", stream=tty) as bar:
        bar.advance()
    assert tty.getvalue() == ""
    monkeypatch.setenv("TBKIT_PROGRESS", "1")
    pipe = io.StringIO()
    with Progress(1, "x", stream=pipe) as bar:
        bar.advance()
    assert "x" in pipe.getvalue()


def test_line_and_amounts() -> None:
    bar = Progress(200, "writing", unit="rows", enabled=False)
    bar.update(50)
    line = bar.line()
    assert "writing" in line and " 25%" in line and "50 rows / 200 rows" in line
    bar.update(500)  # clamped to the total
    assert bar.done == 200
    assert format_amount(2_500_000_000, "B") == "2.5 GB" and format_amount(999, "B") == "999 B"
    assert format_amount(1_234_567, "rows") == "1.2M rows"
    counter = Progress(0, "reading", unit="B", enabled=False)
    counter.update(10)
    assert "[" not in counter.line() and "10 B" in counter.line()


def test_cli_bar_on_a_pty_and_none_in_a_pipe(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "logdir" / "run")) as w:
        for step in range(100):
            w.add_scalar("loss", 1 / (step + 1), step)
    args = [sys.executable, "-m", "tbkit.cli", "export", "--logdir", str(tmp_path / "logdir")]
    env = {k: v for k, v in os.environ.items() if k != "TBKIT_PROGRESS"}
    main, child = pty.openpty()
    try:
        result = subprocess.run(
            [*args, "-o", str(tmp_path / "a")], stderr=child, stdout=subprocess.PIPE, env=env
        )
        os.close(child)
        child = -1
        chunks = []
        while True:
            try:
                data = os.read(main, 4096)
            except OSError:  # the pty is drained once the child is gone
                break
            if not data:
                break
            chunks.append(data)
    finally:
        if child >= 0:
            os.close(child)
        os.close(main)
    assert result.returncode == 0
    drawn = b"".join(chunks).decode()
    assert "\r" in drawn and "reading" in drawn and "writing scalars.parquet" in drawn and "100%" in drawn
    piped = subprocess.run([*args, "-o", str(tmp_path / "b")], capture_output=True, text=True, env=env)
    assert piped.returncode == 0 and piped.stderr == ""
    quiet = [*args, "-o", str(tmp_path / "c"), "--no-progress"]
    main, child = pty.openpty()
    try:
        result = subprocess.run(quiet, stderr=child, stdout=subprocess.PIPE, env=env)
        os.set_blocking(main, False)
        try:
            leftover = os.read(main, 4096)
        except (BlockingIOError, OSError):
            leftover = b""
    finally:
        os.close(child)
        os.close(main)
    assert result.returncode == 0 and leftover == b""
