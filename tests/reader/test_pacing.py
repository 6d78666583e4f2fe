"""Loading that gives way: the lock wrapper, and a reload calling ``give_way`` as it applies windows."""

from __future__ import annotations

import threading

from tbkit import SummaryWriter
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.reader.pacing import GivingWay


def test_giving_way_is_called_before_the_lock_is_taken() -> None:
    lock = threading.Lock()
    held: list[bool] = []
    with GivingWay(lock, lambda: held.append(lock.locked())):
        assert lock.locked()
    assert held == [False] and not lock.locked()


def _logdir(path, tags: int = 3, steps: int = 50) -> str:
    with SummaryWriter(str(path / "run")) as w:
        for step in range(steps):
            for t in range(tags):
                w.add_scalar(f"t{t}", float(step * t), step)
    return str(path)


def test_a_reload_gives_way_and_reads_what_it_reads_without(tmp_path) -> None:
    logdir = _logdir(tmp_path)
    plain = LogdirProvider(LogdirIndex(logdir))
    plain.reload()
    calls: list[bool] = []
    paced = LogdirProvider(LogdirIndex(logdir))
    paced.set_give_way(lambda: calls.append(paced.index._lock._is_owned()))
    paced.reload()
    assert calls and not any(calls)  # called, never with the index lock held
    assert paced.read_scalars("scalars") == plain.read_scalars("scalars")


def test_a_multi_logdir_provider_hands_give_way_to_its_runs_old_and_new(tmp_path) -> None:
    logdir = _logdir(tmp_path)
    provider = MultiLogdirProvider([("", logdir)])
    provider.discover()
    calls: list[int] = []
    provider.set_give_way(lambda: calls.append(1))
    with SummaryWriter(str(tmp_path / "later")) as w:  # a run found after set_give_way
        w.add_scalar("x", 1.0, 0)
    provider.reload()
    first = len(calls)
    assert first >= 2  # both runs' windows
    provider.set_give_way(None)
    with SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("t0", 9.0, 99)
    provider.reload()
    assert len(calls) == first
    assert provider.read_scalars("scalars")["run"]["t0"][-1].step == 99
