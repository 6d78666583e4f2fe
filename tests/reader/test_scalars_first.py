"""A first ``scalars()`` reads the scalar series alone; what it passed over is applied, from its
record offsets, when anything else is asked, and the logdir then equals a full read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import tbkit
from tbkit.plugins import registry
from tbkit.proto import event_pb2, histogram_pb2
from tbkit.reader.logdir import frame_kinds
from tests.reader._events import header, records, simple, start, write

RNG = np.random.default_rng(3)


def _histogram(tag: str, step: int, values: np.ndarray) -> event_pb2.Event:
    counts, edges = np.histogram(values, bins=5)
    histo = histogram_pb2.HistogramProto(min=float(values.min()), max=float(values.max()), num=len(values))
    histo.bucket_limit.extend(edges[1:].tolist())
    histo.bucket.extend(counts.astype(float).tolist())
    event = event_pb2.Event(step=step, wall_time=100.0 + step)
    event.summary.value.add(tag=tag, histo=histo)
    return event


def _mixed_event(step: int) -> event_pb2.Event:
    """One event holding a scalar and a histogram: the scalar is applied, the record deferred."""
    event = _histogram("both/h", step, RNG.normal(size=20))
    event.summary.value.add(tag="both/s", simple_value=float(step))
    return event


@pytest.fixture()
def logdir(tmp_path: Path) -> Path:
    with tbkit.SummaryWriter(str(tmp_path / "rich")) as w:
        for step in range(6):
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_histogram("weights", RNG.normal(size=100), step)
            w.add_image("img", RNG.integers(0, 255, (3, 4, 4), dtype=np.uint8), step)
            w.add_text("note", f"step {step}", step)
        w.add_graph(torch.nn.Linear(2, 2), torch.zeros(1, 2))
        w.add_hparams({"lr": 0.1}, {"hp/acc": 0.5})
    # restarts and legacy out-of-order steps between passed-over records (no file_version)
    events = [_histogram("h", s, RNG.normal(size=30)) for s in range(5)]
    events += [simple("s", s, float(s)) for s in range(5)] + [start(2)]
    events += [_histogram("h", s, RNG.normal(size=30)) for s in (2, 3, 1)] + [simple("s", 3, 9.0)]
    events += [_mixed_event(s) for s in range(3)] + [start(1)] + [_mixed_event(5)]
    write(tmp_path / "restarts", [header(), *events])
    return tmp_path


def _frames(ld: tbkit.Logdir) -> dict[str, pd.DataFrame]:
    return {kind: ld.frame(kind) for kind in frame_kinds()}


def _same(a: object, b: object) -> bool:
    if isinstance(a, pd.DataFrame):
        return (
            isinstance(b, pd.DataFrame)
            and list(a.columns) == list(b.columns)
            and list(a.dtypes) == list(b.dtypes)
            and len(a) == len(b)
            and all(_same(x, y) for name in a.columns for x, y in zip(a[name], b[name], strict=True))
        )
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if hasattr(a, "SerializeToString"):
        return a.SerializeToString() == b.SerializeToString()  # type: ignore[attr-defined]
    if a is pd.NA or b is pd.NA:
        return a is b
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a):
        return np.isnan(b)
    return bool(a == b)


def test_scalars_first_then_everything_equals_a_full_read(logdir: Path) -> None:
    full = tbkit.read(str(logdir))
    full.tags()  # a full read first
    expected = _frames(full)
    ld = tbkit.read(str(logdir))
    scalars = ld.scalars()
    assert _same(scalars, expected["scalars"])
    got = _frames(ld)
    for kind, frame in expected.items():
        if kind == "problems":
            rows = [sorted(map(tuple, f.astype(str).values)) for f in (got[kind], frame)]
            assert rows[0] == rows[1]
        else:
            assert _same(got[kind], frame), kind
    assert len(expected["histograms"]) > 0 and len(expected["graphs"]) > 0 and len(expected["hparams"]) == 1
    replayed = got["histograms"].query("run == 'restarts' and tag == 'h'")["step"]  # restarts replayed
    assert sorted(replayed) == [0]


def test_a_first_scalars_decodes_no_other_kind(logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    migrate = registry.legacy_decoder("histo").migrate
    calls: list[int] = []
    monkeypatch.setattr(registry.legacy_decoder("histo"), "migrate", lambda v: calls.append(1) or migrate(v))
    ld = tbkit.read(str(logdir))
    assert len(ld.scalars()) > 0 and calls == []
    histograms = ld.histograms()
    assert len(calls) == 6 + 8 + 4 and len(histograms) > 0  # each histogram decoded once, when asked


def test_a_record_changed_before_it_is_applied_is_a_problem(logdir: Path) -> None:
    ld = tbkit.read(str(logdir))
    ld.scalars()
    path = next((logdir / "restarts").iterdir())
    data = bytearray(path.read_bytes())
    first_histogram = len(records([header()]))
    data[first_histogram + 20] ^= 0xFF  # inside the first histogram record's data
    path.write_bytes(bytes(data))
    with pytest.warns(RuntimeWarning, match="changed since it was first read"):
        problems = ld.problems()
    assert problems["offset"].tolist() == [first_histogram]
    assert len(ld.histograms().query("run == 'restarts'")) > 0  # the other records still read
