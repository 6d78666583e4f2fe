"""The reader's side of the bulk histogram decoder: when it applies, and what it hands back."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit import SummaryWriter
from tbkit.plugins import registry
from tbkit.plugins.histograms.decode import migrate
from tbkit.proto import event_pb2
from tbkit.reader import histogram_records
from tbkit.reader.histogram_records import decode_histograms
from tbkit.record import native
from tbkit.record.scan import scan_records

needs_core = pytest.mark.skipif(native.core() is None, reason="the compiled core is not built")


def _framed(tmp_path) -> tuple[bytes, np.ndarray, np.ndarray]:
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(4):
            w.add_histogram("h", np.arange(step + 3, dtype=float), step)
            w.add_scalar("s", float(step), step)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    data = path.read_bytes()
    scan = scan_records(data)
    return data, np.asarray(scan.starts, dtype=np.int64), np.asarray(scan.lengths, dtype=np.int64)


@needs_core
def test_each_histogram_record_comes_back_with_its_migrated_rows(tmp_path) -> None:
    data, starts, lengths = _framed(tmp_path)
    found = decode_histograms(data, starts, lengths)
    assert found is not None and len(found.ids) == len(starts)
    decoded = [i for i, t in enumerate(found.ids) if t >= 0]
    assert len(decoded) == 4 and found.tags == ["h"]
    for k, i in enumerate(decoded):
        event = event_pb2.Event.FromString(data[starts[i] : starts[i] + lengths[i]])
        assert (found.steps[i], found.walls[i]) == (event.step, event.wall_time) and event.step == k
        assert np.array_equal(found.rows_of(i), migrate(event.summary.value[0]))


def test_no_bulk_path_without_the_core(tmp_path, monkeypatch) -> None:
    data, starts, lengths = _framed(tmp_path)
    monkeypatch.setattr(native, "core", lambda: None)
    assert decode_histograms(data, starts, lengths) is None


@needs_core
def test_no_bulk_path_when_the_migration_is_replaced(tmp_path, monkeypatch) -> None:
    data, starts, lengths = _framed(tmp_path)
    monkeypatch.setattr(registry.legacy_decoder("histo"), "migrate", lambda value: migrate(value))
    assert decode_histograms(data, starts, lengths) is None
    monkeypatch.undo()
    monkeypatch.setattr(histogram_records._histograms, "migrate", lambda value: migrate(value))
    assert decode_histograms(data, starts, lengths) is None
