"""Reloading reads only the bytes written since, and picks up new files and runs."""

from __future__ import annotations

import threading

import pytest

import tbkit
from tests.reader._events import FILE_NAME, header, records, simple, write


def test_reload_reads_only_new_bytes(tmp_path):
    path = tmp_path / "run" / FILE_NAME
    path.parent.mkdir()
    first = records([header()] + [simple("a", s, s) for s in range(1, 4)])
    path.write_bytes(first)
    ld = tbkit.read(str(tmp_path))
    assert ld.scalars()["step"].tolist() == [1, 2, 3]
    # Garbage over the bytes already read would be a problem if they were read again.
    more = records([simple("a", s, s) for s in range(4, 6)])
    path.write_bytes(b"\xee" * len(first) + more)
    ld.reload()
    assert ld.scalars()["step"].tolist() == [1, 2, 3, 4, 5]
    assert ld.problems().empty


def test_partial_record_completes_on_reload(tmp_path):
    path = tmp_path / "run" / FILE_NAME
    path.parent.mkdir()
    data = records([header()] + [simple("a", s, s) for s in range(1, 4)])
    path.write_bytes(data[:-7])
    ld = tbkit.read(str(tmp_path))
    assert ld.scalars()["step"].tolist() == [1, 2]
    assert ld.problems()["reason"].str.startswith("incomplete").tolist() == [True]
    path.write_bytes(data)
    ld.reload()
    assert ld.scalars()["step"].tolist() == [1, 2, 3]
    assert ld.problems().empty


def test_frames_are_cached_and_copies_are_independent(tmp_path):
    path = tmp_path / "run" / FILE_NAME
    path.parent.mkdir()
    path.write_bytes(records([header()] + [simple("a", s, s) for s in range(1, 4)]))
    ld = tbkit.read(str(tmp_path))
    df = ld.scalars()
    df.loc[0, "value"] = -100.0
    assert ld.scalars()["value"].tolist() == [1.0, 2.0, 3.0]
    assert ld.provider.read_scalars("scalars")["run"]["a"][0].value == 1.0


def test_reload_finds_new_files_and_runs(tmp_path):
    (tmp_path / "r1").mkdir()
    (tmp_path / "r1" / FILE_NAME).write_bytes(records([header(), simple("a", 1, 1.0)]))
    ld = tbkit.read(str(tmp_path))
    assert ld.runs()["run"].tolist() == ["r1"]
    (tmp_path / "r1" / (FILE_NAME + ".2")).write_bytes(records([header(), simple("a", 2, 2.0)]))
    (tmp_path / "r2").mkdir()
    (tmp_path / "r2" / FILE_NAME).write_bytes(records([header(), simple("b", 1, 1.0)]))
    ld.reload()
    assert ld.runs()["run"].tolist() == ["r1", "r2"]
    df = ld.scalars()
    assert df[df.run == "r1"]["step"].tolist() == [1, 2]


def test_live_writer_is_read_while_writing(tmp_path):
    w = tbkit.SummaryWriter(str(tmp_path / "live"))
    try:
        w.add_scalar("x", 1.0, 1)
        w.flush()
        ld = tbkit.read(str(tmp_path))
        assert ld.scalars()["step"].tolist() == [1]
        w.add_scalar("x", 2.0, 2)
        w.flush()
        assert ld.reload().scalars()["step"].tolist() == [1, 2]
    finally:
        w.close()


def test_a_limited_first_look_reads_a_prefix_then_the_rest(tmp_path):
    from tbkit.reader.index import LogdirIndex
    from tbkit.reader.multi import MultiLogdirProvider

    path = tmp_path / "run" / FILE_NAME
    path.parent.mkdir()
    path.write_bytes(records([header()] + [simple(f"t{s % 3}", s, s) for s in range(1, 301)]))
    index = LogdirIndex(str(tmp_path))
    index.reload(limit=2000)  # a few dozen records: every tag, not every point
    (run,) = index.runs()
    counts = {tag: len(series) for tag, series in run.series.items()}
    assert set(counts) == {"t0", "t1", "t2"}
    assert 0 < sum(counts.values()) < 300
    assert index.problems() == []  # the unread rest is no "incomplete record"
    index.reload()
    assert sum(len(s) for s in index.runs()[0].series.values()) == 300

    provider = MultiLogdirProvider([("", str(tmp_path))])
    provider.reload()
    assert sum(len(points) for points in provider.read_scalars("scalars")["run"].values()) == 300


def test_one_character_tags_take_the_scalar_fast_path():
    import numpy as np

    from tbkit.proto import event_pb2, summary_pb2
    from tbkit.reader.fastscalar import extract

    value = summary_pb2.Summary.Value(tag="x", simple_value=0.5)
    raw = event_pb2.Event(
        wall_time=1.0, step=1, summary=summary_pb2.Summary(value=[value])
    ).SerializeToString()
    assert len(raw) == 23  # the smallest single-scalar event
    assert extract(raw + bytes(16), np.array([0]), np.array([len(raw)])).values.tolist() == [0.5]


def test_loading_holds_the_lock_per_window_not_per_file(tmp_path, monkeypatch):
    """Readers of a run (the server's listing) wait for one window of records, not the whole file."""
    import threading

    from tbkit.reader import loader
    from tbkit.reader.events import RunData

    path = tmp_path / FILE_NAME
    path.write_bytes(records([header()] + [simple("a", s, s) for s in range(1, 2001)]))
    monkeypatch.setattr(loader, "WINDOW", 4096)

    class CountingLock:
        def __init__(self) -> None:
            self.inner = threading.RLock()
            self.entered = 0

        def __enter__(self) -> None:
            self.inner.acquire()
            self.entered += 1

        def __exit__(self, *exc: object) -> None:
            self.inner.release()

    lock = CountingLock()
    run = RunData(".")
    loader.load_file(run, str(path), lock=lock)
    assert len(run.series["a"]) == 2000
    windows = path.stat().st_size // 4096
    assert lock.entered >= windows > 5  # released between windows


def _load_in_chunks(path, chunk):
    from tbkit.reader.events import RunData
    from tbkit.reader.loader import load_file

    run = RunData("run")
    load_file(run, str(path), chunk=chunk)
    return run


def test_a_file_read_in_small_chunks_loads_as_read_whole(tmp_path):
    path = tmp_path / FILE_NAME
    long_tag = "t" * 300  # records longer than the chunk: the chunk grows to hold them
    events = [header()] + [simple("a" if s % 3 else long_tag, s, s / 2) for s in range(60)]
    path.write_bytes(records(events))
    whole = _load_in_chunks(path, 1 << 20)
    chunked = _load_in_chunks(path, 64)
    assert sorted(chunked.series) == sorted(whole.series) == ["a", long_tag]
    for tag in whole.series:
        for a, b in zip(whole.series[tag].columns(), chunked.series[tag].columns(), strict=True):
            assert a.tolist() == b.tolist()
    state = chunked.files[str(path)]
    assert state.offset == path.stat().st_size and state.tail is None and not chunked.problems


def test_chunked_read_reports_an_incomplete_last_record_once(tmp_path):
    path = tmp_path / FILE_NAME
    data = records([header()] + [simple("a", s, s) for s in range(40)])
    path.write_bytes(data[:-5])
    run = _load_in_chunks(path, 100)
    state = run.files[str(path)]
    assert run.series["a"].columns()[0].tolist() == list(range(39))
    assert state.tail is not None and state.tail.reason.startswith("incomplete last record")
    assert state.offset + 5 < len(data) and state.tail.offset == state.offset


def test_resync_after_a_corrupt_header_works_across_small_chunks(tmp_path):
    path = tmp_path / FILE_NAME
    first = records([header()] + [simple("a", s, s) for s in range(30)])
    bad = bytearray(records([simple("a", 30, 30.0)]))
    bad[8] ^= 0xFF  # the length checksum: the reader must find the next record by itself
    rest = records([simple("a", s, s) for s in range(31, 60)])
    path.write_bytes(first + bytes(bad) + rest)
    with pytest.warns(RuntimeWarning):
        whole = _load_in_chunks(path, 1 << 20)
    with pytest.warns(RuntimeWarning):
        chunked = _load_in_chunks(path, 48)
    steps = whole.series["a"].columns()[0].tolist()
    assert steps == [s for s in range(60) if s != 30]
    assert chunked.series["a"].columns()[0].tolist() == steps
    assert [(p.offset, p.reason) for p in chunked.problems] == [(p.offset, p.reason) for p in whole.problems]
    assert whole.problems and whole.problems[0].offset == len(first)


def test_runs_load_side_by_side_to_what_one_thread_reads(tmp_path, monkeypatch):
    import tbkit.reader.index as index

    for run in range(6):
        write(
            tmp_path / f"run{run}",
            [header()] + [simple(f"t{k}", s, s * k + run) for s in range(50) for k in range(3)],
        )
    frames = {}
    for threads in (1, 4):
        monkeypatch.setattr(index, "LOAD_THREADS", threads)
        frames[threads] = tbkit.read(str(tmp_path)).scalars()
    assert frames[4].equals(frames[1]) and len(frames[1]) == 6 * 150


def test_a_first_load_asked_while_holding_the_index_lock_does_not_wait_on_itself(tmp_path, monkeypatch):
    import tbkit.reader.index as index

    monkeypatch.setattr(index, "LOAD_THREADS", 4)
    for run in range(3):
        write(tmp_path / f"run{run}", [header(), simple("a", 1, 1.0)])
    ld = tbkit.read(str(tmp_path))
    names: list[str] = []

    def first_use() -> None:
        with ld._index._lock:  # as the provider's listings do: the load runs in this thread
            names.extend(r.name for r in ld._index.runs())

    thread = threading.Thread(target=first_use, daemon=True)
    thread.start()
    thread.join(60)  # a deadlock guard, not a speed bound: the load takes milliseconds
    assert not thread.is_alive() and names == ["run0", "run1", "run2"]


def test_the_read_buffer_kept_from_file_to_file_leaves_nothing_of_one_in_another(tmp_path):
    # Each loading thread's read buffer is reused by its next file: text, image bytes
    # and scalars read from a file must not change when a later file is read into that buffer.
    import numpy as np

    for run, seed in (("a", 1), ("b", 2), ("c", 3)):
        with tbkit.SummaryWriter(str(tmp_path / run)) as writer:
            rng = np.random.default_rng(seed)
            for step in range(3 + seed):  # files of different lengths: a shorter one after a longer
                writer.add_scalar("loss", float(rng.random()), step)
                writer.add_text("note", f"{run}-{step}-" + "x" * (50 * seed), step)
                writer.add_image("img", rng.integers(0, 255, (3, 4, 4), dtype=np.uint8), step)
    alone = {run: tbkit.read(str(tmp_path), runs=[run]) for run in "abc"}
    together = tbkit.read(str(tmp_path))  # three runs on two loading threads: one reads two
    for run in "abc":
        for kind in ("scalars", "text", "images"):
            mine = getattr(together, kind)()
            mine = mine[mine["run"] == run].reset_index(drop=True)
            theirs = getattr(alone[run], kind)().reset_index(drop=True)
            assert len(mine) == 3 + "abc".index(run) + 1
            column = {"scalars": "value", "text": "text", "images": "data"}[kind]
            assert mine[column].tolist() == theirs[column].tolist(), (run, kind)
    text = together.text()
    assert text[text["run"] == "c"]["text"].iloc[0] == "c-0-" + "x" * 150
