"""Tailing: a run written fast by another process while the reader and the server poll it.

One child process logs ``RATE`` scalars a second for a few seconds (the issue's probe runs
10,000 events/s for 60 s; this is its short variant) with a one-second flush interval, so
files grow under the readers mid-record. Meanwhile this process reloads a
``tbkit.read`` logdir and the server's provider and asks the server's scalars route. Every
answer seen on the way is a prefix of what was written (nothing twice, nothing out of
order, no gap); after the writer exits, one more reload shows every point exactly once.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.app import create_app
from tbkit.server.reload import Reloader, ReloadState

RATE = 10_000  # scalars per second
SECONDS = 3
TOTAL = RATE * SECONDS

_WRITER = textwrap.dedent(
    """
    import sys, time
    import tbkit

    rate, total = int(sys.argv[2]), int(sys.argv[3])
    with tbkit.SummaryWriter(sys.argv[1], flush_secs=1) as w:
        start = time.perf_counter()
        for step in range(total):
            w.add_scalar("loss", step * 0.5, step)
            if step % 1000 == 999:  # keep to the rate: sleep until this thousand is due
                time.sleep(max(0.0, start + (step + 1) / rate - time.perf_counter()))
    """
)


def _check_prefix(steps: np.ndarray, values: np.ndarray, what: str) -> int:
    """The points seen are steps 0..n-1 in order, each once, with its value; returns n."""
    n = len(steps)
    assert np.array_equal(steps, np.arange(n)), f"{what}: not a prefix of the written steps"
    assert np.array_equal(values, np.arange(n) * 0.5), f"{what}: a value differs"
    return n


@pytest.mark.slow
def test_every_point_once_while_a_fast_writer_runs(tmp_path: Path) -> None:
    run = tmp_path / "fast"
    child = subprocess.Popen([sys.executable, "-c", _WRITER, str(run), str(RATE), str(TOTAL)])
    try:
        logdir = tbkit.read(str(tmp_path))
        provider = MultiLogdirProvider([("", str(tmp_path))])
        state = ReloadState(0.0)
        reloader = Reloader(provider, state)
        client = create_app(provider, reload_state=state, samples_per_plugin={"scalars": None}).test_client()
        seen_frame, seen_api, polls, partial = 0, 0, 0, 0
        while True:
            done = child.poll() is not None  # decided before reading: after it, nothing more comes
            frame = logdir.reload().scalars()
            n = _check_prefix(frame["step"].to_numpy(), frame["value"].to_numpy(), "tbkit.read")
            assert n >= seen_frame, "tbkit.read: points went away"
            seen_frame = n
            partial += 0 < n < TOTAL

            reloader.reload_once()
            answer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=fast").json
            if "fast" in answer:  # before the run's first file is listed, it is not known yet
                series = answer["fast"]
                steps = np.asarray(series["step"], dtype=np.int64)
                values = np.asarray(series["value"], dtype=np.float64)
                n = _check_prefix(steps, values, "server")
                assert series["total"] == n
                assert n >= seen_api, "server: points went away"
                seen_api = n
            polls += 1
            if done:
                break
            time.sleep(0.05)
        assert child.returncode == 0
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert seen_frame == TOTAL and seen_api == TOTAL
    assert polls >= 3 and partial >= 2  # the readers did look while the file grew
    assert logdir.problems().empty
