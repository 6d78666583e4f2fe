"""Tailing side by side: a fast writer in another process, readers polling the same run.

A child process logs ``--rate`` scalars a second (10,000 by default) for ``--seconds`` (60)
with ``tbkit.SummaryWriter(flush_secs=1)``, so the event file grows under the readers, often
in the middle of a record. While it runs, this process polls the run with:

* ``tbkit.read``: ``Logdir.reload().scalars()``;
* ``tbkit serve``'s provider and route: one reload of the server's provider, then
  ``/data/plugin/scalars/scalars`` for the tag (Flask's test client, no sockets);
* TensorBoard's ``EventAccumulator`` (``Reload()`` with no sampling) when tensorboard is
  installed.

Every answer is checked against what was written: the points seen must be steps
``0..n-1`` in order, each once, with its value. The table gives, per reader, the polls made,
how many answers were not such a prefix (a duplicate, a gap, a wrong value), the points seen
at the end (after the writer exited, one more poll) and the mean time of a poll.

Usage: ``python bench/tailing.py [--seconds 60] [--rate 10000]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import tbkit
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.app import create_app
from tbkit.server.reload import Reloader, ReloadState

WRITER = textwrap.dedent(
    """
    import sys, time
    import tbkit

    rate, total = int(sys.argv[2]), int(sys.argv[3])
    with tbkit.SummaryWriter(sys.argv[1], flush_secs=1) as w:
        start = time.perf_counter()
        for step in range(total):
            w.add_scalar("loss", step * 0.5, step)
            if step % 1000 == 999:
                time.sleep(max(0.0, start + (step + 1) / rate - time.perf_counter()))
    """
)

Poll = Callable[[], tuple[np.ndarray, np.ndarray]]


def _tbkit_read(logdir: str) -> Poll:
    ld = tbkit.read(logdir)

    def poll() -> tuple[np.ndarray, np.ndarray]:
        frame = ld.reload().scalars()
        return frame["step"].to_numpy(), frame["value"].to_numpy()

    return poll


def _tbkit_server(logdir: str) -> Poll:
    provider = MultiLogdirProvider([("", logdir)])
    state = ReloadState(0.0)
    reloader = Reloader(provider, state)
    client = create_app(provider, reload_state=state, samples_per_plugin={"scalars": None}).test_client()

    def poll() -> tuple[np.ndarray, np.ndarray]:
        reloader.reload_once()
        answer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=fast").json or {}
        series = answer.get("fast", {"step": [], "value": []})
        return np.asarray(series["step"], dtype=np.int64), np.asarray(series["value"], dtype=np.float64)

    return poll


def _event_accumulator(run: str) -> Poll | None:
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        return None
    acc = event_accumulator.EventAccumulator(run, size_guidance={event_accumulator.SCALARS: 0})

    def poll() -> tuple[np.ndarray, np.ndarray]:
        acc.Reload()
        if "loss" not in acc.Tags()["scalars"]:
            return np.zeros(0, np.int64), np.zeros(0)
        events = acc.Scalars("loss")
        return np.array([e.step for e in events], np.int64), np.array([e.value for e in events])

    return poll


def _is_prefix(steps: np.ndarray, values: np.ndarray) -> bool:
    n = len(steps)
    return bool(np.array_equal(steps, np.arange(n)) and np.allclose(values, np.arange(n) * 0.5, rtol=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=10_000)
    args = parser.parse_args()
    total = int(args.rate * args.seconds)
    with tempfile.TemporaryDirectory(prefix="tbkit-tailing-") as tmp:
        run = Path(tmp) / "fast"
        run.mkdir()
        # Every reader is set up (and TensorBoard imported) before the writer starts.
        readers: dict[str, Poll] = {"tbkit.read": _tbkit_read(tmp), "tbkit serve": _tbkit_server(tmp)}
        accumulator = _event_accumulator(str(run))
        if accumulator is not None:
            readers["TensorBoard EventAccumulator"] = accumulator
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(run), str(args.rate), str(total)])
        stats = {name: {"polls": 0, "bad": 0, "seen": 0, "time": 0.0} for name in readers}
        try:
            while True:
                done = child.poll() is not None  # decided before reading: after it, nothing more comes
                for name, poll in readers.items():
                    start = time.perf_counter()
                    steps, values = poll()
                    stat = stats[name]
                    stat["time"] += time.perf_counter() - start
                    stat["polls"] += 1
                    stat["bad"] += not _is_prefix(steps, values)
                    stat["seen"] = len(steps)
                if done:
                    break
                time.sleep(0.2)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
    print(f"writer: {total:,} scalars at {args.rate:,}/s for {args.seconds:g} s, exit {child.returncode}")
    head = ("reader", "polls", "bad answers", "points at end", "exactly once", "mean poll")
    print(f"{head[0]:<30} {head[1]:>6} {head[2]:>12} {head[3]:>14} {head[4]:>13} {head[5]:>10}")
    for name, stat in stats.items():
        once = "yes" if stat["seen"] == total and not stat["bad"] else "no"
        mean = stat["time"] / max(stat["polls"], 1)
        print(f"{name:<30} {stat['polls']:>6} {stat['bad']:>12} {stat['seen']:>14,} {once:>13} {mean:>9.3f}s")


if __name__ == "__main__":
    main()
