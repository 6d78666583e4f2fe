"""Distributed training: only rank 0 writes by default; ``per_rank=True`` gives every rank a run."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tbkit import SummaryWriter
from tbkit.writer._rank import resolve_rank
from tbkit.writer.summary_writer import NullSummaryWriter

from ._events import event_files, run_events

# Arguments every add_* method accepts positionally (the null writer must not even look at them).
_JUNK = ("tag", np.ones((2, 3, 4)), 1)


@pytest.fixture(autouse=True)
def _no_launcher_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)


def _public_methods() -> list[str]:
    return [n for n, v in inspect.getmembers(SummaryWriter, inspect.isfunction) if not n.startswith("_")]


def test_every_writing_method_of_the_writer_is_a_no_op_on_the_null_writer() -> None:
    # A method added to SummaryWriter later must be covered too: only these may stay inherited.
    inherited = {"get_logdir"}
    overridden = {
        n for n in _public_methods() if getattr(NullSummaryWriter, n) is not getattr(SummaryWriter, n)
    }
    assert set(_public_methods()) - overridden == inherited


def test_non_zero_rank_gets_a_null_writer_that_accepts_every_call_and_writes_nothing(tmp_path) -> None:
    log_dir = tmp_path / "run"
    w = SummaryWriter(str(log_dir), flush_secs=60, rank=1)
    assert isinstance(w, NullSummaryWriter) and isinstance(w, SummaryWriter)
    assert w.get_logdir() == str(log_dir) and w.rank == 1
    for name in _public_methods():
        if name.startswith("add_"):
            assert getattr(w, name)(*_JUNK) is None, name
            assert getattr(w, name)() is None, name  # even missing arguments are accepted
    w.add_scalar("loss", 0.5, global_step=3, walltime=1.0)
    w.end_hparams_session("success")
    w.flush()
    with w:
        w.add_text("note", "hello")
    w.close()
    assert not log_dir.exists()
    assert list(tmp_path.iterdir()) == []


def test_rank_zero_writes_as_before(tmp_path) -> None:
    with SummaryWriter(str(tmp_path), rank=0) as w:
        assert type(w) is SummaryWriter and w.rank == 0
        w.add_scalar("loss", 0.5, 3)
    events = run_events(str(tmp_path))
    assert [(e.step, v.tag) for e in events[1:] for v in e.summary.value] == [(3, "loss")]


@pytest.mark.parametrize("variable", ["RANK", "LOCAL_RANK"])
def test_the_launchers_environment_chooses_the_rank(tmp_path, monkeypatch, variable) -> None:
    monkeypatch.setenv(variable, "2")
    assert resolve_rank() == 2
    w = SummaryWriter(str(tmp_path / "run"))
    assert isinstance(w, NullSummaryWriter) and w.rank == 2
    w.add_scalar("loss", 1.0, 1)
    w.close()
    assert not (tmp_path / "run").exists()


def test_rank_argument_overrides_the_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    with SummaryWriter(str(tmp_path), rank=0) as w:
        w.add_scalar("loss", 1.0, 1)
    assert len(event_files(str(tmp_path))) == 1
    monkeypatch.setenv("RANK", "0")  # RANK comes before LOCAL_RANK
    assert resolve_rank() == 0


def test_a_malformed_rank_variable_is_ignored_and_a_bad_argument_refused(monkeypatch) -> None:
    monkeypatch.setenv("RANK", "not-a-number")
    assert resolve_rank() == 0
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="rank"):
            resolve_rank(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="rank"):
            SummaryWriter("unused", rank=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("rank", [0, 3])
def test_per_rank_gives_every_rank_its_own_run(tmp_path, rank) -> None:
    with SummaryWriter(str(tmp_path), rank=rank, per_rank=True) as w:
        assert type(w) is SummaryWriter
        assert w.get_logdir() == str(tmp_path / f"rank{rank}")
        w.add_scalar("loss", float(rank), 7)
    events = run_events(str(tmp_path / f"rank{rank}"))
    assert [(e.step, v.tag) for e in events[1:] for v in e.summary.value] == [(7, "loss")]
    assert event_files(str(tmp_path)) == []


def test_per_rank_with_the_environment_and_the_default_log_dir(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RANK", "5")
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_exp", per_rank=True) as w:
        w.add_scalar("loss", 1.0, 1)
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.endswith("_exp")
    assert [p.name for p in run.iterdir()] == ["rank5"]
    assert w.get_logdir().endswith("_exp/rank5")
    null = SummaryWriter(comment="_exp")
    assert isinstance(null, NullSummaryWriter) and null.get_logdir().startswith("runs")


def test_a_subclass_on_a_non_zero_rank_gets_an_initialised_null_writer(tmp_path) -> None:
    class MyWriter(SummaryWriter):
        pass

    w = MyWriter(str(tmp_path / "run"), rank=1)
    assert isinstance(w, NullSummaryWriter)
    assert w.get_logdir() == str(tmp_path / "run")
    w.add_scalar("loss", 1.0, 1)
    w.close()
    assert not (tmp_path / "run").exists()
    with MyWriter(str(tmp_path / "zero"), rank=0) as real:
        assert type(real) is MyWriter
