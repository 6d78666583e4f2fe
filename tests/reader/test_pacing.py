"""Loading that gives way: the lock wrapper, and a reload calling ``give_way`` as it applies windows."""

from __future__ import annotations

import threading

from tbkit import SummaryWriter
from tbkit.reader import loader
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.reader.pacing import GivingWay, pause


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


def test_a_pause_lets_the_lock_go_while_giving_way() -> None:
    lock = threading.RLock()
    held: list[bool] = []
    paced = GivingWay(lock, lambda: held.append(lock._is_owned()))
    with paced:
        paced.pause()
        assert lock._is_owned()  # taken again
    assert held == [False, False]  # on entry and in the pause, both without the lock


def test_a_pause_inside_a_hold_taken_before_does_not_wait() -> None:
    lock = threading.RLock()
    calls: list[int] = []
    paced = GivingWay(lock, lambda: calls.append(1))
    with lock, paced:  # the caller held it already: requests could not go meanwhile
        paced.pause()
        assert lock._is_owned()
    assert calls == []


def test_pause_is_nothing_for_a_lock_that_does_not_give_way() -> None:
    lock = threading.RLock()
    with lock:
        pause(lock)
        assert lock._is_owned()


def test_a_window_of_many_tags_pauses_between_groups_and_reads_the_same(tmp_path, monkeypatch) -> None:
    logdir = _logdir(tmp_path, tags=10, steps=20)
    plain = LogdirProvider(LogdirIndex(logdir))
    plain.reload()
    monkeypatch.setattr(loader, "TAG_GROUP", 3)  # 10 tags in one window: 4 groups, 3 pauses
    calls: list[bool] = []
    paced = LogdirProvider(LogdirIndex(logdir))
    paced.set_give_way(lambda: calls.append(paced.index._lock._is_owned()))
    paced.reload()
    assert len(calls) >= 4 and not any(calls)  # the window's entry and 3 pauses, lock let go
    assert paced.read_scalars("scalars") == plain.read_scalars("scalars")
