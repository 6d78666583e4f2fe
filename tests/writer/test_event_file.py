"""EventFileWriter: naming, header, flushing, closing, background errors, exit, ordering, metadata."""

from __future__ import annotations

import contextlib
import math
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest

from tbkit._tensors import make_ndarray
from tbkit.errors import TbkitError, WriterClosedError, WriterError
from tbkit.plugins.histograms.summary import equal_width_buckets, histogram_pb
from tbkit.plugins.scalars.summary import scalar_pb, simple_scalar_pb
from tbkit.plugins.text.summary import text_pb
from tbkit.proto import event_pb2
from tbkit.record import storage
from tbkit.writer import event_file
from tbkit.writer.event_file import EventFileWriter

from ._events import event_files, parse_events, scalar_value

POLL_STEP = 0.02
POLL_LIMIT = 1500  # a bound on the polling loop, not a timing claim


def _poll(condition) -> bool:
    for _ in range(POLL_LIMIT):
        if condition():
            return True
        time.sleep(POLL_STEP)
    return condition()


def _summary_values(events: list[event_pb2.Event]) -> list[tuple[str, int, bool]]:
    return [
        (v.tag, e.step, v.HasField("metadata"))
        for e in events
        if e.HasField("summary")
        for v in e.summary.value
    ]


@pytest.fixture
def writer(tmp_path):
    w = EventFileWriter(str(tmp_path), flush_secs=60)
    yield w
    with contextlib.suppress(WriterError):
        w.close()


class _FailingFile:
    """Stands in for the event file: every write fails like a full disk."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_first_record_is_the_file_version_header(writer: EventFileWriter) -> None:
    writer.close()
    events = parse_events(writer.path)
    assert len(events) == 1
    header = events[0]
    assert header.file_version == "brain.Event:2"
    assert header.WhichOneof("what") == "file_version"
    assert header.wall_time > 0
    assert header.step == 0


def test_header_is_on_disk_before_any_flush(writer: EventFileWriter) -> None:
    events = parse_events(writer.path)
    assert [e.file_version for e in events] == ["brain.Event:2"]


def test_file_name_pattern(tmp_path) -> None:
    before = int(time.time())
    w = EventFileWriter(str(tmp_path), filename_suffix=".v2-x")
    w.close()
    after = int(time.time())
    name = os.path.basename(w.path)
    assert os.path.dirname(w.path) == str(tmp_path)
    host = re.escape(socket.gethostname())
    m = re.fullmatch(
        rf"events\.out\.tfevents\.(\d{{10}})\.{host}\.(\d+)\.(\d+)\.([0-9a-z]+)\.v2-x",
        name,
    )
    assert m, name
    assert before <= int(m.group(1)) <= after
    assert int(m.group(2)) == os.getpid()


def test_two_writers_in_one_directory_get_different_files(tmp_path) -> None:
    writers = [EventFileWriter(str(tmp_path)) for _ in range(5)]
    for w in writers:
        w.close()
    assert len({w.path for w in writers}) == 5
    assert len(event_files(str(tmp_path))) == 5


def test_creates_missing_logdir(tmp_path) -> None:
    logdir = tmp_path / "a" / "b" / "run"
    w = EventFileWriter(str(logdir))
    w.close()
    assert logdir.is_dir()
    assert event_files(str(logdir)) == [w.path]


@pytest.mark.parametrize(
    ("kwargs", "word"), [({"flush_secs": 0}, "flush_secs"), ({"max_queue": 0}, "max_queue")]
)
def test_bad_options(tmp_path, kwargs, word) -> None:
    with pytest.raises(ValueError, match=word):
        EventFileWriter(str(tmp_path), **kwargs)


def test_data_on_disk_after_flush(writer: EventFileWriter) -> None:
    writer.add_scalar("loss", 0.5, 3, 1234.5)
    writer.add_summary(text_pb("note", "hi"), 4, 1235.0)
    writer.flush()
    events = parse_events(writer.path)
    assert [(e.step, e.wall_time) for e in events[1:]] == [(3, 1234.5), (4, 1235.0)]
    assert scalar_value(events[1].summary.value[0]) == np.float32(0.5)


def test_data_on_disk_after_the_flush_timer(tmp_path) -> None:
    w = EventFileWriter(str(tmp_path), flush_secs=0.05)
    try:
        w.add_scalar("loss", 1.5, 1, 100.0)
        assert _poll(lambda: len(parse_events(w.path)) == 2)
        w.add_scalar("loss", 2.5, 2, 101.0)
        assert _poll(lambda: len(parse_events(w.path)) == 3)
        events = parse_events(w.path)
        assert [scalar_value(e.summary.value[0]) for e in events[1:]] == [1.5, 2.5]
    finally:
        w.close()


def test_max_queue_wakes_the_thread_before_the_timer(tmp_path) -> None:
    w = EventFileWriter(str(tmp_path), flush_secs=3600, max_queue=5)
    try:
        for i in range(5):
            w.add_scalar("x", float(i), i, 1.0)
        assert _poll(lambda: len(parse_events(w.path)) == 6)
    finally:
        w.close()


def test_close_is_idempotent(writer: EventFileWriter) -> None:
    writer.add_scalar("a", 1.0, 0, 1.0)
    writer.close()
    size = os.path.getsize(writer.path)
    writer.close()
    writer.close()
    assert os.path.getsize(writer.path) == size
    assert len(parse_events(writer.path)) == 2


@pytest.mark.parametrize(
    "call",
    [
        lambda w: w.add_scalar("a", 1.0, 0, 1.0),
        lambda w: w.add_summary(scalar_pb("a", 1.0), 0, 1.0),
        lambda w: w.add_event(event_pb2.Event(step=1)),
        lambda w: w.flush(),
    ],
    ids=["add_scalar", "add_summary", "add_event", "flush"],
)
def test_closed_writer_raises(writer: EventFileWriter, call) -> None:
    writer.close()
    with pytest.raises(WriterClosedError) as info:
        call(writer)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, TbkitError)
    assert info.value.path == writer.path
    assert "closed" in str(info.value)


def _break(writer: EventFileWriter) -> _FailingFile:
    real = writer._file
    failing = _FailingFile()
    writer._file = failing
    real.close()
    return failing


def test_background_error_is_raised_on_next_add_and_on_close(tmp_path) -> None:
    w = EventFileWriter(str(tmp_path), flush_secs=0.05)
    failing = _break(w)
    w.add_scalar("a", 1.0, 0, 1.0)

    def next_add_raises() -> bool:
        try:
            w.add_scalar("a", 2.0, 1, 1.0)
        except WriterError:
            return True
        return False

    assert _poll(next_add_raises)
    assert failing.writes >= 1
    for call in (
        lambda: w.add_scalar("a", 3.0, 2, 1.0),
        lambda: w.add_summary(scalar_pb("b", 1.0), 2, 1.0),
        lambda: w.add_event(event_pb2.Event(step=2)),
    ):
        with pytest.raises(WriterError) as info:
            call()
        assert info.value.path == w.path
        assert isinstance(info.value.__cause__, OSError)
        assert "No space left" in str(info.value)
    with pytest.raises(WriterError) as info:
        w.close()
    assert isinstance(info.value.__cause__, OSError)
    assert info.value.path == w.path


def test_background_error_is_raised_by_flush_then_close(tmp_path) -> None:
    w = EventFileWriter(str(tmp_path), flush_secs=3600)
    _break(w)
    w.add_summary(text_pb("t", "x"), 0, 1.0)
    with pytest.raises(WriterError):
        w.flush()
    with pytest.raises(WriterError):
        w.close()


def test_background_error_on_close_only(tmp_path) -> None:
    # The failure happens while close() drains: close itself must report it.
    w = EventFileWriter(str(tmp_path), flush_secs=3600)
    _break(w)
    w.add_scalar("a", 1.0, 0, 1.0)
    with pytest.raises(WriterError) as info:
        w.close()
    assert isinstance(info.value.__cause__, OSError)


_EXIT_SCRIPT = textwrap.dedent(
    """
    import sys
    import tbkit
    from tbkit.writer.event_file import EventFileWriter
    from tbkit.plugins.text.summary import text_pb

    w = EventFileWriter(sys.argv[1], flush_secs=3600)
    for i in range(100):
        w.add_scalar("loss", float(i), i, 10.0 + i)
    w.add_summary(text_pb("note", "bye"), 100, 200.0)
    # No reference kept at all: the thread and the exit hook still write it.
    tbkit.SummaryWriter(sys.argv[2], flush_secs=3600).add_scalar("x", 7.0, global_step=5)
    """
)


def test_pending_data_are_written_at_interpreter_exit(tmp_path) -> None:
    kept, dropped = str(tmp_path / "kept"), str(tmp_path / "dropped")
    subprocess.run([sys.executable, "-c", _EXIT_SCRIPT, kept, dropped], check=True, capture_output=True)
    (path,) = event_files(kept)
    events = parse_events(path)
    assert len(events) == 1 + 100 + 1
    assert [e.step for e in events[1:101]] == list(range(100))
    assert [scalar_value(e.summary.value[0]) for e in events[1:101]] == [float(i) for i in range(100)]
    assert make_ndarray(events[-1].summary.value[0].tensor).item() == b"bye"
    (path,) = event_files(dropped)
    events = parse_events(path)
    assert [(e.step, scalar_value(e.summary.value[0])) for e in events[1:]] == [(5, 7.0)]


def test_more_items_than_the_hard_queue_bound_are_all_written_in_order(tmp_path) -> None:
    count = event_file._HARD_LIMIT_ITEMS + 5000
    w = EventFileWriter(str(tmp_path), flush_secs=3600)
    for i in range(count):
        w.add_scalar("s", float(i), i, 1.0)
    w.close()
    events = parse_events(w.path)
    assert len(events) == 1 + count
    steps = np.fromiter((e.step for e in events[1:]), dtype=np.int64, count=count)
    assert np.array_equal(steps, np.arange(count))
    last = events[-1].summary.value[0]
    assert scalar_value(last) == float(count - 1)


def test_byte_bound_blocks_and_keeps_order(tmp_path, monkeypatch) -> None:
    # A small byte bound makes add_summary wait for the thread often; nothing is lost or reordered.
    monkeypatch.setattr(event_file, "_HARD_LIMIT_BYTES", 4096)
    w = EventFileWriter(str(tmp_path), flush_secs=3600)
    big = "x" * 1000
    for i in range(300):
        if i % 3 == 0:
            w.add_scalar("s", float(i), i, 1.0)
        else:
            w.add_summary(text_pb("t", f"{i}:{big}"), i, 1.0)
    w.close()
    events = parse_events(w.path)
    assert [e.step for e in events[1:]] == list(range(300))
    texts = [make_ndarray(e.summary.value[0].tensor).item() for e in events[1:] if e.step % 3]
    assert texts == [f"{i}:{big}".encode() for i in range(300) if i % 3]


def test_scalars_are_simple_values_and_tensors_get_metadata_once(writer: EventFileWriter) -> None:
    for step in range(3):
        writer.add_scalar("a", float(step), step, 1.0)
        writer.add_scalar("b", float(step), step, 1.0)
    writer.add_summary(scalar_pb("a", 9.0, double=True), 3, 1.0)  # another form, the same tag
    writer.add_summary(scalar_pb("c", 9.0, double=True), 3, 1.0)
    writer.close()
    events = parse_events(writer.path)[1:]
    # simple_value scalars carry no metadata (as torch writes them); the first tensor of a tag does.
    assert _summary_values(events) == [
        ("a", 0, False),
        ("b", 0, False),
        ("a", 1, False),
        ("b", 1, False),
        ("a", 2, False),
        ("b", 2, False),
        ("a", 3, True),
        ("c", 3, True),
    ]
    # The fast path's bytes are exactly the proto builder's.
    for event in events[:6]:
        value = event.summary.value[0]
        assert value.WhichOneof("value") == "simple_value"
        expected = simple_scalar_pb(value.tag, value.simple_value)
        assert event.summary.SerializeToString() == expected.SerializeToString()
    assert events[6].summary.value[0].metadata.plugin_data.plugin_name == "scalars"


_STEPS = [0, 1, 127, 128, 16383, 16384, 2**21, 2**28, 2**35, 2**42, 2**49, 2**56, 2**63 - 1, -1, -(2**63)]


def test_scalar_steps_of_every_varint_length(writer: EventFileWriter) -> None:
    tags = ["a", "b/c", "ü"]
    expected = []
    for i, step in enumerate(_STEPS):
        for j, tag in enumerate(tags):
            value, wall_time = float(np.float32(i * 0.37 - j)), 1.6e9 + i + j / 8
            writer.add_scalar(tag, value, step, wall_time)
            expected.append((tag, step, wall_time, value))
    writer.close()
    events = parse_events(writer.path)[1:]
    got = [(e.summary.value[0].tag, e.step, e.wall_time, scalar_value(e.summary.value[0])) for e in events]
    assert got == expected
    assert not any(e.summary.value[0].HasField("metadata") for e in events)


def test_scalar_values_beyond_float32_range_become_inf(writer: EventFileWriter) -> None:
    writer.add_scalar("x", 1e39, 0, 1.0)
    writer.add_scalar("x", -1e300, 1, 1.0)
    writer.add_scalar("x", 3.4028235e38, 2, 1.0)  # rounds to float32's largest finite value
    writer.add_scalar("x", 1e-50, 3, 1.0)  # below float32's smallest subnormal: zero
    writer.close()
    got = [scalar_value(e.summary.value[0]) for e in parse_events(writer.path)[1:]]
    assert got[:2] == [math.inf, -math.inf]
    assert got[2] == float(np.finfo(np.float32).max)
    assert got[3] == 0.0


def test_many_scalars_of_many_tags_across_batches(writer: EventFileWriter) -> None:
    n = 30000
    for i in range(n):
        writer.add_scalar(f"t{i % 7}", float(i), i, 2.0)
        if i % 4999 == 0:
            writer.add_summary(text_pb("note", str(i)), i, 2.0)
    writer.close()
    events = parse_events(writer.path)[1:]
    scalars = [e for e in events if e.summary.value[0].tag != "note"]
    assert [e.step for e in scalars] == list(range(n))
    assert [e.summary.value[0].tag for e in scalars] == [f"t{i % 7}" for i in range(n)]
    assert [scalar_value(e.summary.value[0]) for e in scalars] == [float(i) for i in range(n)]
    assert not any(e.summary.value[0].HasField("metadata") for e in scalars)
    notes = [
        (e.step, make_ndarray(e.summary.value[0].tensor).item())
        for e in events
        if e.summary.value[0].tag == "note"
    ]
    assert notes == [(i, str(i).encode()) for i in range(0, n, 4999)]


def test_metadata_only_on_each_tags_first_value_other_kinds(writer: EventFileWriter) -> None:
    buckets = equal_width_buckets(np.arange(10.0))
    writer.add_summary(histogram_pb("h", buckets), 0, 1.0)
    writer.add_summary(text_pb("t", "one"), 0, 1.0)
    writer.add_summary(histogram_pb("h", buckets), 1, 1.0)
    writer.add_summary(text_pb("t", "two"), 1, 1.0)
    # Tensor scalars via a proto first, then the fast path; and the fast path first, then a proto:
    # a simple_value (no metadata) leaves the tag's first tensor its metadata.
    writer.add_summary(scalar_pb("p", 1.0), 0, 1.0)
    writer.add_scalar("p", 2.0, 1, 1.0)
    writer.add_scalar("q", 1.0, 0, 1.0)
    writer.add_summary(scalar_pb("q", 2.0), 1, 1.0)
    writer.add_summary(scalar_pb("q", 3.0), 2, 1.0)
    writer.close()
    events = parse_events(writer.path)[1:]
    assert _summary_values(events) == [
        ("h", 0, True),
        ("t", 0, True),
        ("h", 1, False),
        ("t", 1, False),
        ("p", 0, True),
        ("p", 1, False),
        ("q", 0, False),
        ("q", 1, True),
        ("q", 2, False),
    ]
    assert events[0].summary.value[0].metadata.plugin_data.plugin_name == "histograms"
    assert events[1].summary.value[0].metadata.plugin_data.plugin_name == "text"


def test_metadata_again_in_a_new_file(tmp_path) -> None:
    for _ in range(2):
        w = EventFileWriter(str(tmp_path))
        w.add_summary(scalar_pb("a", 1.0), 0, 1.0)
        w.add_summary(scalar_pb("a", 2.0), 1, 1.0)
        w.close()
    for path in event_files(str(tmp_path)):
        assert _summary_values(parse_events(path)[1:]) == [("a", 0, True), ("a", 1, False)]


def test_add_event_is_written_as_is(writer: EventFileWriter) -> None:
    event = event_pb2.Event(wall_time=5.0, step=9, graph_def=b"\x01\x02graph")
    writer.add_event(event)
    writer.close()
    assert parse_events(writer.path)[1] == event


def test_memory_filesystem(tmp_path) -> None:
    import fsspec

    root = f"memory://tbkit-writer-{uuid.uuid4().hex}"
    logdir = storage.join(root, "run")
    try:
        w = EventFileWriter(logdir)
        w.add_scalar("m", 0.25, 2, 3.0)
        w.add_summary(text_pb("t", "in memory"), 3, 4.0)
        w.close()
        assert w.path.startswith(logdir + "/events.out.tfevents.")
        assert event_files(logdir) == [w.path]
        events = parse_events(w.path)
        assert events[0].file_version == "brain.Event:2"
        assert scalar_value(events[1].summary.value[0]) == 0.25
        assert make_ndarray(events[2].summary.value[0].tensor).item() == b"in memory"
        assert not any(tmp_path.iterdir())  # nothing went to the local disk
    finally:
        fsspec.filesystem("memory").rm(root[len("memory://") :], recursive=True)


def test_names_made_in_one_second_sort_in_creation_order(monkeypatch) -> None:
    """A run's files are read in name order: the 10th file of a second must sort after the 9th."""
    import itertools

    from tbkit.writer import naming

    monkeypatch.setattr(naming, "_counter", itertools.count(8))
    names = [naming.event_file_name(now=1_700_000_000) for _ in range(4)]  # counters 8, 9, 10, 11
    assert sorted(names) == names
