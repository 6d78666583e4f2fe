"""Records a first ``scalars()`` passed over: deferred in the order read without splitting the
scalars around them, and applied later with legacy histograms decoded in bulk by the core."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.proto import event_pb2, histogram_pb2
from tbkit.reader import loader, passed_over
from tbkit.reader.events import RunData
from tbkit.record import native
from tests.reader._events import header, simple, start, write

RNG = np.random.default_rng(5)


def _logdir(path: Path) -> Path:
    for run in ("a", "b"):
        with tbkit.SummaryWriter(str(path / run)) as w:
            for step in range(40):
                w.add_scalar("loss", 1.0 / (step + 1), step)
                w.add_histogram("weights", RNG.normal(size=50), step)
                w.add_histogram("bias", RNG.normal(size=8), step)
                w.add_text("note", f"step {step}", step)
                w.add_scalar("acc", step / 40, step)
    return path


def _deferred(ld: tbkit.Logdir) -> list[list[tuple[str, int, int]]]:
    return [list(run.deferred) for run in ld._index._runs.values()]


def test_records_passed_over_again_are_deferred_in_the_order_read(tmp_path, monkeypatch) -> None:
    logdir = _logdir(tmp_path)
    split: list[int] = []
    original = loader._passed_over_again

    def spy(*args: object) -> tuple[list[int], list[int]]:
        kept, later = original(*args)  # type: ignore[arg-type]
        split.append(len(later))
        return kept, later

    monkeypatch.setattr(loader, "_passed_over_again", spy)
    monkeypatch.setattr(loader, "WINDOW", 4096)  # the tags are passed over in the first window
    ld = tbkit.read(str(logdir))
    ld.scalars()
    assert sum(split) > 0  # the path was taken
    for deferred in _deferred(ld):
        assert len(deferred) == 3 * 40  # two histograms and a text a step
        offsets = [at for _, at, _ in deferred]
        assert offsets == sorted(offsets)


def test_passing_over_again_changes_nothing_a_read_gives(tmp_path, monkeypatch) -> None:
    logdir = _logdir(tmp_path)
    monkeypatch.setattr(loader, "WINDOW", 4096)
    fast = tbkit.read(str(logdir))
    fast.scalars()
    deferred_fast = _deferred(fast)
    monkeypatch.setattr(loader, "_passed_over_again", lambda run, buf, starts, lengths, slow: (slow, []))
    plain = tbkit.read(str(logdir))
    plain.scalars()
    assert _deferred(plain) == deferred_fast
    assert plain.scalars().equals(fast.scalars())
    assert plain.text().equals(fast.text())


@pytest.mark.skipif(native.core() is None, reason="the compiled core is not built")
def test_legacy_histograms_passed_over_are_decoded_in_bulk_as_protobuf_would(tmp_path, monkeypatch) -> None:
    logdir = _logdir(tmp_path)
    bulk: list[int] = []
    decode = passed_over.decode_histograms

    def counted(*args: object) -> object:
        found = decode(*args)  # type: ignore[arg-type]
        bulk.extend(i for i in found.ids if i >= 0)
        return found

    first: list[str] = []  # each tag's first histogram of a batch takes every check
    apply_histogram = RunData.apply_histogram
    monkeypatch.setattr(
        RunData, "apply_histogram", lambda self, tag, *a: first.append(tag) or apply_histogram(self, tag, *a)
    )
    monkeypatch.setattr(passed_over, "decode_histograms", counted)
    ld = tbkit.read(str(logdir))
    ld.scalars()
    got = ld.histograms()
    assert len(bulk) == 2 * 2 * 40  # every histogram of both runs
    assert 4 <= len(first) < len(bulk)  # the others went straight to their series
    monkeypatch.setattr(passed_over, "decode_histograms", lambda *a: None)  # protobuf for every record
    slow = tbkit.read(str(logdir))
    slow.scalars()
    expected = slow.histograms()
    assert len(got) == len(expected) == 160
    for column in expected.columns:
        for x, y in zip(got[column], expected[column], strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y)), column
    assert (
        tbkit.read(str(logdir)).histograms()["step"].tolist() == expected["step"].tolist()
    )  # a full read too


def test_a_point_the_decoder_refuses_is_the_same_problem_in_bulk_and_through_protobuf(
    tmp_path, monkeypatch
) -> None:
    """A histogram after its tag's first goes straight to the series; one its decoder refuses
    takes apply_histogram instead, which says why, where the protobuf path says it too."""
    from tbkit.plugins.histograms import decode as histograms

    logdir = _logdir(tmp_path)
    decode = histograms.decode

    def picky(array: np.ndarray) -> np.ndarray:
        if len(array) % 3 == 0:  # a property of the rows: both paths refuse the same points
            raise ValueError("refused by the test")
        return decode(array)

    monkeypatch.setattr(histograms, "decode", picky)

    def read() -> tuple[list[object], object]:
        ld = tbkit.read(str(logdir))
        ld.scalars()
        with pytest.warns(RuntimeWarning, match="refused by the test"):
            frame = ld.histograms()
        return ld.problems().to_dict("records"), frame

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passed_over, "decode_histograms", lambda *a: None)  # protobuf for every record
        slow_problems, slow = read()
    problems, got = read()
    assert len(problems) > 0 and problems == slow_problems
    assert got["step"].tolist() == slow["step"].tolist() and len(got) < 160


def test_a_replaced_migration_takes_every_histogram_through_protobuf(tmp_path, monkeypatch) -> None:
    from tbkit.plugins import registry

    logdir = _logdir(tmp_path)
    legacy = registry.legacy_decoder("histo")
    migrate = legacy.migrate
    calls: list[int] = []
    monkeypatch.setattr(legacy, "migrate", lambda v: calls.append(1) or migrate(v))
    ld = tbkit.read(str(logdir))
    ld.scalars()
    assert len(ld.histograms()) == 160 and len(calls) == 160


def test_the_runs_records_passed_over_are_applied_side_by_side(tmp_path, monkeypatch) -> None:
    import threading

    from tbkit.reader import index
    from tbkit.reader.index import LogdirIndex

    logdir = _logdir(tmp_path)
    names: list[str] = []
    original = index.load_passed_over

    def spy(run: RunData, lock: object = None) -> None:
        names.append(threading.current_thread().name)
        original(run, lock)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "load_passed_over", spy)
    paced = LogdirIndex(str(logdir), threads=2)
    paced.ensure_loaded(scalars_only=True)
    paced.ensure_loaded()
    assert len(names) == 2 and all(name.startswith("tbkit-load") for name in names)
    one = LogdirIndex(str(logdir), threads=1)
    one.ensure_loaded(scalars_only=True)
    one.ensure_loaded()
    assert len(names) == 4 and not names[2].startswith("tbkit-load")
    for a, b in zip(paced.runs(), one.runs(), strict=True):
        assert sorted(a.series) == sorted(b.series) == ["acc", "bias", "loss", "note/text_summary", "weights"]
        assert [len(a.series[t]) for t in sorted(a.series)] == [len(b.series[t]) for t in sorted(b.series)]


def _histogram(tag: str, step: int, extra: str | None = None) -> event_pb2.Event:
    histo = histogram_pb2.HistogramProto(min=0.0, max=float(step + 1), num=3)
    histo.bucket_limit.extend([0.5, float(step + 1)])
    histo.bucket.extend([1.0, 2.0])
    event = event_pb2.Event(step=step, wall_time=100.0 + step)
    event.summary.value.add(tag=tag, histo=histo)
    if extra is not None:  # a second value: such an event is applied, not deferred in bulk
        event.summary.value.add(tag=extra, simple_value=float(step))
    return event


@pytest.mark.parametrize("window", [96, 256, 4096])
def test_restarts_and_mixed_events_between_records_passed_over_again(tmp_path, monkeypatch, window) -> None:
    events = [header()]
    for step in range(12):
        events += [simple("s", step, float(step)), _histogram("h", step), _histogram("g", step, "both")]
        if step in (4, 9):
            events.append(start(step - 2))  # a restart: replayed on the deferred tags' series
    events.append(_histogram("h", 0))  # step 0: no step field, a layout the peek does not take
    write(tmp_path / "run", events)
    full = tbkit.read(str(tmp_path))
    expected = (full.scalars(), full.histograms())
    monkeypatch.setattr(loader, "WINDOW", window)  # many windows: the bulk deferral is taken
    first = tbkit.read(str(tmp_path))
    assert first.scalars().equals(expected[0])
    got = first.histograms()
    assert got[["run", "tag", "step"]].equals(expected[1][["run", "tag", "step"]])
    assert all(np.array_equal(a, b) for a, b in zip(got["counts"], expected[1]["counts"], strict=True))
    assert sorted(got.query("tag == 'h'")["step"].tolist()) == [0, 0, 1, 5, 6, 10, 11]  # restarts replayed
