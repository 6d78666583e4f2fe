"""Live data: points and runs written after the app was created appear after a reload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tbkit
from tbkit import SummaryWriter
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.app import create_app
from tbkit.server.reload import Reloader, ReloadState


def _write(logdir: Path, run: str, steps: range) -> None:
    with SummaryWriter(str(logdir / run)) as w:
        for step in steps:
            w.add_scalar("loss", float(step), step)


def test_new_points_and_runs_after_reload(tmp_path: Path) -> None:
    _write(tmp_path, "a", range(10))
    provider = MultiLogdirProvider([("", str(tmp_path))])
    state = ReloadState(1.0)
    reloader = Reloader(provider, state)
    client = create_app(provider, reload_state=state).test_client()
    assert client.get("/data/runs").json == []  # nothing read yet: the server still answers
    reloader.reload_once()
    first = client.get("/data/reload_state").json
    assert first["generation"] >= 1 and not first["loading"] and first["last_reload"] > 0
    assert client.get("/data/plugin/scalars/scalars?tag=loss&runs=a").json["a"]["total"] == 10

    _write(tmp_path, "a", range(10, 25))  # a second event file in the same run
    _write(tmp_path, "b", range(5))
    assert client.get("/data/plugin/scalars/scalars?tag=loss&runs=a").json["a"]["total"] == 10
    reloader.reload_once()
    second = client.get("/data/reload_state").json
    assert second["generation"] > first["generation"]
    assert [r["name"] for r in client.get("/data/runs").json] == ["a", "b"]
    answer = client.get("/data/plugin/scalars/scalars?tag=loss").json
    assert answer["a"]["total"] == 25 and answer["a"]["step"][-1] == 24
    assert answer["b"]["total"] == 5

    reloader.reload_once()  # nothing new: the generation stays
    assert client.get("/data/reload_state").json["generation"] == second["generation"]


def test_reload_of_a_tbkit_read_provider(tmp_path: Path) -> None:
    _write(tmp_path, "a", range(3))
    provider = tbkit.read(str(tmp_path)).provider
    state = ReloadState(0.0)
    client = create_app(provider, reload_state=state).test_client()
    assert client.get("/data/plugin/scalars/scalars?tag=loss").json["a"]["total"] == 3
    _write(tmp_path, "a", range(3, 7))
    Reloader(provider, state).reload_once()
    assert client.get("/data/plugin/scalars/scalars?tag=loss").json["a"]["total"] == 7


def test_background_reloader_lists_runs_one_by_one(tmp_path: Path) -> None:
    for run in ("r1", "r2", "r3"):
        _write(tmp_path, run, range(4))
    provider = MultiLogdirProvider([("", str(tmp_path))])
    seen: list[int] = []
    state = ReloadState(0.0, loading=True)
    original = state.observe

    def observe(generation: int) -> None:
        seen.append(len([r for r in provider.list_runs() if r.start_time is not None]))
        original(generation)

    state.observe = observe  # type: ignore[method-assign]
    reloader = Reloader(provider, state).start()
    reloader.first_load.wait()  # stop() at once could come before the thread's first reload
    reloader.stop(timeout=60)
    assert not state.loading
    assert seen[0] == 0 and seen[-1] == 3  # progress is reported before, between and after runs
    # After discovery, then after each run's first look and after each run's full read. (Not
    # the generation: runs read in parallel may finish together, so the bumps may coalesce.)
    assert len(seen) >= 1 + 3 + 3
    assert state.generation >= 1


def test_a_failing_reload_keeps_serving(tmp_path: Path, caplog: Any) -> None:
    class Failing:
        generation = 0

        def reload(self, progress: Any = None) -> int:
            raise OSError("disk gone")

    state = ReloadState(0.0, loading=True)
    reloader = Reloader(Failing(), state).start()
    reloader.first_load.wait()
    reloader.stop(timeout=60)
    assert not state.loading
    assert "reload failed" in caplog.text


def test_on_first_load_runs_once_after_the_first_reload() -> None:
    class Counting:
        generation = 0
        reloads = 0

        def reload(self, progress: Any = None) -> int:
            self.reloads += 1
            return self.generation

    provider = Counting()
    calls: list[int] = []
    reloader = Reloader(provider, ReloadState(0.0), lambda: calls.append(provider.reloads))
    reloader.reload_once()  # a reload in the caller's thread is not the background's first one
    reloader.start()
    assert reloader.first_load.wait()
    reloader.stop()
    assert calls == [2]


def test_first_load_is_set_after_a_failing_reload(caplog: Any) -> None:
    class Failing:
        generation = 0

        def reload(self, progress: Any = None) -> int:
            raise OSError("disk gone")

    calls: list[str] = []
    reloader = Reloader(Failing(), ReloadState(0.0), lambda: calls.append("called")).start()
    assert reloader.first_load.wait()
    reloader.stop()
    assert calls == []  # nothing was loaded: no first-load callback
    assert "reload failed" in caplog.text
