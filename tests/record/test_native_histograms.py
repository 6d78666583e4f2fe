"""The compiled core's bulk decoder of legacy-histogram events against protobuf and the migration."""

from __future__ import annotations

import numpy as np

from tbkit import SummaryWriter
from tbkit.plugins.histograms.decode import migrate
from tbkit.proto import event_pb2
from tbkit.record.scan import scan_records
from tests.record._paths import _native as core


def _records(tmp_path) -> tuple[bytes, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(6):  # step 0 leaves the step field out
            w.add_histogram("weights/a", rng.normal(size=50), step)
            w.add_histogram("weights/é", rng.integers(0, 4, size=9), step)
            w.add_histogram("const", np.full(5, 2.0), step)
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_image("img", np.zeros((3, 2, 2), dtype=np.uint8), step)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    data = path.read_bytes()
    scan = scan_records(data)
    return data, np.asarray(scan.starts, dtype=np.int64), np.asarray(scan.lengths, dtype=np.int64)


def test_each_histogram_event_is_decoded_as_protobuf_and_migrate_decode_it(tmp_path) -> None:
    data, starts, lengths = _records(tmp_path)
    tags, ids, steps, walls, ends, rows = core.histogram_events(data, starts, lengths)
    ids = np.frombuffer(ids, dtype=np.int32)
    steps = np.frombuffer(steps, dtype=np.int64)
    walls = np.frombuffer(walls, dtype=np.float64)
    ends = np.frombuffer(ends, dtype=np.int64)
    rows = np.frombuffer(rows, dtype=np.float32).reshape(-1, 3)
    assert len(ids) == len(starts)
    decoded = 0
    for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        event = event_pb2.Event.FromString(data[s : s + n])
        values = list(event.summary.value) if event.HasField("summary") else []
        is_histogram = len(values) == 1 and values[0].HasField("histo")
        if not is_histogram:
            assert ids[i] == -1
            continue
        decoded += 1
        assert tags[ids[i]] == values[0].tag
        assert (steps[i], walls[i]) == (event.step, event.wall_time)
        lo = ends[i - 1] if i else 0
        mine = rows[lo : ends[i]]
        assert mine.tobytes() == migrate(values[0]).tobytes()
    assert decoded == 18


def test_records_cut_short_are_left_to_protobuf(tmp_path) -> None:
    data, starts, lengths = _records(tmp_path)
    cut = np.maximum(lengths - 7, 0)  # every record cut inside its payload
    ids = np.frombuffer(core.histogram_events(data, starts, cut)[1], dtype=np.int32)
    assert (ids == -1).all()


def _points() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    points = [rng.normal(size=(k, 3)) for k in (4, 0, 1, 7)]
    return [p.astype(np.float32) if i % 2 else p for i, p in enumerate(points)]


def _cells_in_numpy(points: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    edges = [np.r_[p[:, 0], p[-1, 1]] for p in points if len(p)]
    counts = np.concatenate([p[:, 2] for p in points])
    return np.concatenate(edges).astype(np.float64), counts.astype(np.float64)


def test_histogram_cells_are_each_points_lefts_last_right_and_counts_widened() -> None:
    points = _points()
    want_edges, want_counts = _cells_in_numpy(points)
    edges, counts = np.full(len(want_edges), np.nan), np.full(len(want_counts), np.nan)
    assert core.histogram_cells(points, edges, counts) is True
    assert edges.tobytes() == want_edges.tobytes() and counts.tobytes() == want_counts.tobytes()


def test_histogram_cells_refuse_what_they_cannot_fill() -> None:
    points = _points()
    want_edges, want_counts = _cells_in_numpy(points)
    edges, counts = np.empty(len(want_edges)), np.empty(len(want_counts))
    odd = [
        [np.ones((2, 3), dtype=np.float16)],  # another dtype
        [np.ones((2, 3), dtype=">f8")],  # another byte order
        [np.ones((3, 2)).T],  # not C-contiguous
        [np.ones((2, 4))],  # four columns
        [np.ones(6)],  # one dimension
        [b"123456789012"],  # bytes, no float format
        points[:-1],  # the buffers are bigger than the points
        [*points, np.ones((1, 3))],  # the buffers are too small
    ]
    for values in odd:
        assert core.histogram_cells(values, edges, counts) is False, values
    assert core.histogram_cells([], np.empty(0), np.empty(0)) is True
