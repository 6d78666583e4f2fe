"""The collector held off during loads: back on after, whatever happened, unless it was off."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tbkit
from tbkit import _collector
from tbkit._collector import collector_held
from tbkit.reader import index as index_module


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_nested_holds_turn_it_on_after_the_outermost() -> None:
    with collector_held():
        assert not gc.isenabled()
        with collector_held():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_stays_off_when_it_was_off() -> None:
    gc.disable()
    with collector_held():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_on_again_after_an_error() -> None:
    with pytest.raises(RuntimeError), collector_held():
        raise RuntimeError("boom")
    assert gc.isenabled() and _collector._holders == 0


def test_holders_on_two_threads_leave_it_on_after_the_last() -> None:
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_held():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    entered.wait(10)
    with collector_held():
        pass
    assert not gc.isenabled()  # the other thread still holds it
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_load_holds_it_off_and_gives_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with tbkit.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_scalar("loss", 1.0, 0)
    seen: list[bool] = []
    real = index_module.load_file

    def load_file(*args: object, **kwargs: object) -> None:
        seen.append(gc.isenabled())
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index_module, "load_file", load_file)
    assert len(tbkit.read(str(tmp_path)).scalars()) == 1
    assert seen == [False] and gc.isenabled()
