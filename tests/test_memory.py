"""Heap settings for long-lived processes (glibc)."""

from __future__ import annotations

import sys

import pytest

from tbkit._memory import release_free_memory, settle_heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_settle_heap_applies_on_glibc():
    assert settle_heap() is True
    release_free_memory()  # still works after the settings change


def test_release_when_due_trims_once_per_budget(monkeypatch) -> None:
    import tbkit._memory as memory

    trims = []
    monkeypatch.setattr(memory, "release_free_memory", lambda: trims.append(1))
    monkeypatch.setattr(memory, "_due", 0)
    monkeypatch.setattr(memory, "TRIM_EVERY", 1000)
    released = [memory.release_when_due(1) for _ in range(2500)]  # 2,500 small files
    assert sum(released) == len(trims) == 2 and released[999] and released[1999]


def test_loading_many_small_files_trims_the_heap_rarely(tmp_path, monkeypatch) -> None:
    import tbkit
    import tbkit.reader.loader as loader

    calls = []
    monkeypatch.setattr(loader, "release_when_due", lambda n: calls.append(n) or False)
    for run in range(5):
        with tbkit.SummaryWriter(str(tmp_path / f"run{run}")) as w:
            w.add_scalar("loss", 1.0, 0)
    assert len(tbkit.read(str(tmp_path)).scalars()) == 5
    assert len(calls) == 5 and all(0 < n < 1000 for n in calls)  # each file counts its bytes
