"""The timeline columns, nesting, operator table and step times of one trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tbkit.plugins.profile import analysis, decode, tables
from tests.plugins.profile._profile_data import HAND_EVENTS, trace_json, write_torch_trace


def _timeline(events):
    return analysis.build_timeline(events)


def test_hand_made_trace_columns_tracks_and_skipped_phases() -> None:
    t = _timeline(HAND_EVENTS)
    # 5 X + 1 joined B/E + 1 instant; the flow and the counter are not drawn, metadata neither.
    assert len(t) == 7 and t.events_total == len(HAND_EVENTS)
    assert t.skipped == {"s": 1, "C": 1} and t.unclosed == 0
    assert t.start_us == 1000 and t.span_us == 160
    # thread_sort_index puts the loader (tid 2) first; names from the metadata events
    assert [(k.name, k.pid, k.tid, k.first, k.count, k.depth) for k in t.tracks] == [
        ("trainer / loader", 7, 2, 0, 2, 1),
        ("trainer / main", 7, 1, 2, 5, 3),
    ]
    names = [t.names[i] for i in t.name]
    assert names == ["load", "tick", "ProfilerStep#3", "matmul", "add", "matmul", "ProfilerStep#4"]
    assert t.ts.tolist() == [0, 40, 0, 10, 20, 60, 100]
    assert t.dur.tolist() == [30, 0, 100, 40, 10, 20, 60]
    assert t.depth.tolist() == [0, 0, 0, 1, 2, 1, 0]
    assert t.self_us.tolist() == [30, 0, 100 - 40 - 20, 30, 10, 20, 60]
    assert t.instant.tolist() == [False, True, False, False, False, False, False]
    assert [t.categories[i] for i in t.cat] == [
        "io",
        "",
        "user_annotation",
        "cpu_op",
        "cpu_op",
        "cpu_op",
        "user_annotation",
    ]


def test_begin_end_pairs_nest_and_unclosed_ones_end_with_the_trace() -> None:
    events = [
        {"ph": "B", "name": "outer", "ts": 0, "pid": 1, "tid": 1, "args": {"a": 1}},
        {"ph": "B", "name": "inner", "ts": 2, "pid": 1, "tid": 1},
        {"ph": "E", "ts": 4, "pid": 1, "tid": 1},
        {"ph": "E", "ts": 9, "pid": 1, "tid": 1, "args": {"b": 2}},
        {"ph": "E", "ts": 10, "pid": 1, "tid": 1},  # closes nothing
        {"ph": "B", "name": "open", "ts": 6, "pid": 1, "tid": 3},
        {"ph": "X", "name": "late", "ts": 8, "dur": 12, "pid": "gpu", "tid": "stream 7"},
    ]
    t = _timeline(events)
    assert [t.names[i] for i in t.name] == ["outer", "inner", "open", "late"]
    assert t.dur.tolist() == [9, 2, 14, 12]  # "open" runs to the trace's end (20)
    assert t.depth.tolist() == [0, 1, 0, 0] and t.self_us.tolist() == [7, 2, 14, 12]
    assert t.skipped == {"E": 1} and t.unclosed == 1
    assert [k.name for k in t.tracks] == ["1 / 1", "1 / 3", "gpu / stream 7"]  # int ids before strings
    details = analysis.event_details(t, events, 0)
    assert details["args"] == {"a": 1, "b": 2} and details["phase"] == "B"
    assert details["dur_us"] == 9 and details["track_name"] == "1 / 1"


def test_event_details_of_an_x_event() -> None:
    t = _timeline(HAND_EVENTS)
    d = analysis.event_details(t, HAND_EVENTS, 3)
    assert d == {
        "index": 3,
        "name": "matmul",
        "category": "cpu_op",
        "phase": "X",
        "ts_us": 10.0,
        "start_us": 1010.0,
        "dur_us": 40.0,
        "self_us": 30.0,
        "depth": 1,
        "track": 1,
        "track_name": "trainer / main",
        "pid": 7,
        "tid": 1,
        "args": {"k": 1},
    }


def test_op_table_groups_by_name_and_category_without_instants() -> None:
    rows = tables.op_table(_timeline(HAND_EVENTS))
    table = {(r["name"], r["category"]): (r["count"], r["total_us"], r["self_us"]) for r in rows}
    assert table == {
        ("ProfilerStep#3", "user_annotation"): (1, 100, 40),
        ("ProfilerStep#4", "user_annotation"): (1, 60, 60),
        ("matmul", "cpu_op"): (2, 60, 50),
        ("load", "io"): (1, 30, 30),
        ("add", "cpu_op"): (1, 10, 10),
    }
    assert [r["name"] for r in rows] == ["ProfilerStep#4", "matmul", "ProfilerStep#3", "load", "add"]


def test_step_times_from_profiler_steps_or_a_note() -> None:
    steps = tables.step_times(_timeline(HAND_EVENTS))
    assert steps["steps"] == [
        {"step": 3, "ts_us": 0.0, "dur_us": 100.0},
        {"step": 4, "ts_us": 100.0, "dur_us": 60.0},
    ]
    assert steps["summary"] == {"count": 2, "mean_us": 80.0, "min_us": 60.0, "max_us": 100.0, "std_us": 20.0}
    assert steps["note"] is None
    none = tables.step_times(_timeline([{"ph": "X", "name": "a", "ts": 0, "dur": 1}]))
    assert none["steps"] == [] and none["summary"] is None and "ProfilerStep" in none["note"]


def test_a_step_on_two_tracks_spans_both() -> None:
    events = [
        {"ph": "X", "name": "ProfilerStep#0", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
        {"ph": "X", "name": "ProfilerStep#0", "ts": 5, "dur": 10, "pid": 1, "tid": 2},
    ]
    assert tables.step_times(_timeline(events))["steps"] == [{"step": 0, "ts_us": 0.0, "dur_us": 15.0}]


def test_empty_and_odd_traces() -> None:
    t = _timeline([])
    assert len(t) == 0 and t.tracks == [] and t.span_us == 0
    assert tables.op_table(t) == [] and tables.step_times(t)["steps"] == []
    odd = [
        {"ph": "X", "name": "no time"},
        {"ph": "X", "name": "nan", "ts": float("nan"), "dur": 1},
        {"ph": "X", "name": "text", "ts": "3", "dur": "2", "pid": 1.0, "tid": None},
        {"ph": "X", "name": "negative", "ts": 4, "dur": -5, "pid": True, "tid": [1]},
    ]
    t = _timeline(odd)
    assert [t.names[i] for i in t.name] == ["text", "negative"]
    assert t.dur.tolist() == [2, 0] and t.skipped == {"X": 2}
    assert [(k.pid, k.tid) for k in t.tracks] == [(1, ""), ("True", "[1]")]


@pytest.fixture(scope="module")
def torch_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_torch_trace(tmp_path_factory.mktemp("torch_trace"))


def test_torch_trace_agrees_with_the_reader_and_the_json(torch_trace: Path) -> None:
    data = torch_trace.read_bytes()
    events = decode.load(data)
    t = _timeline(events)
    raw = trace_json(torch_trace)["traceEvents"]
    assert len(t) == sum(e["ph"] in ("X", "i", "I") for e in raw)
    # The operator table is the reader's (tbkit.read(...).traces() top_ops), here for every op.
    reader = {(r["name"], r["category"]): r for r in decode.summarize(data, top=None)["top_ops"]}
    mine = {(r["name"], r["category"]): r for r in tables.op_table(t)}
    assert mine.keys() == reader.keys()
    for key, row in reader.items():
        assert mine[key]["count"] == row["count"]
        assert mine[key]["total_us"] == pytest.approx(row["total_us"], abs=1e-6)
        assert mine[key]["self_us"] == pytest.approx(row["self_us"], abs=0.01)  # ts relative to the start
    steps = tables.step_times(t)["steps"]
    assert [s["step"] for s in steps] == [1, 2]  # warmup 1, active 2
    by_name = {e["name"]: e["dur"] for e in raw if str(e.get("name", "")).startswith("ProfilerStep#")}
    assert [s["dur_us"] for s in steps] == pytest.approx(
        [by_name["ProfilerStep#1"], by_name["ProfilerStep#2"]]
    )
    assert np.all(np.diff(t.track) >= 0)
