"""Profile routes: the trace listing, timeline columns, event details, operator table, step times."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.app import create_app
from tests.plugins.profile._profile_data import HAND_EVENTS, trace_json

BASE = "/data/plugin/profile"
HAND = {"run": "a", "session": "s1", "worker": "w0"}


@pytest.fixture
def client(profile_logdir: Path, make_client: Any) -> Any:
    return make_client(profile_logdir)


def test_traces_lists_every_run_session_and_worker(client: Any) -> None:
    answer = client.get(f"{BASE}/traces").json
    assert answer == {
        "a": [
            {
                "session": "s1",
                "worker": "w0",
                "path": "plugins/profile/s1/w0.pt.trace.json.gz",
                "size": answer["a"][0]["size"],
            },
            {
                "session": "s2",
                "worker": "w1",
                "path": "plugins/profile/s2/w1.pt.trace.json.gz",
                "size": answer["a"][1]["size"],
            },
        ],
        "bad": [
            {
                "session": "s1",
                "worker": "w0",
                "path": "plugins/profile/s1/w0.pt.trace.json.gz",
                "size": answer["bad"][0]["size"],
            }
        ],
    }
    assert all(e["size"] > 0 for entries in answer.values() for e in entries)


def test_the_tab_is_enabled_by_trace_files_alone(client: Any, make_client: Any, tmp_path: Path) -> None:
    listing = client.get("/data/plugins_listing").json["profile"]
    assert listing["enabled"] and listing["tab_name"] == "Profile"
    assert listing["script"].endswith("/plugins/profile/profile.js")
    empty = make_client(tmp_path)
    assert not empty.get("/data/plugins_listing").json["profile"]["enabled"]
    assert empty.get(f"{BASE}/traces").json == {}


def test_timeline_columns(client: Any) -> None:
    t = client.get(f"{BASE}/timeline", query_string=HAND).json
    assert t["run"] == "a" and t["session"] == "s1" and t["worker"] == "w0"
    assert t["events"] == 7 and t["events_total"] == len(HAND_EVENTS)
    assert t["skipped"] == {"s": 1, "C": 1} and t["unclosed"] == 0
    assert t["start_us"] == 1000 and t["span_us"] == 160
    assert t["tracks"] == [
        {"name": "trainer / loader", "pid": 7, "tid": 2, "first": 0, "count": 2, "depth": 1},
        {"name": "trainer / main", "pid": 7, "tid": 1, "first": 2, "count": 5, "depth": 3},
    ]
    names = [t["names"][i] for i in t["name"]]
    assert names == ["load", "tick", "ProfilerStep#3", "matmul", "add", "matmul", "ProfilerStep#4"]
    assert t["ts"] == [0, 40, 0, 10, 20, 60, 100] and t["dur"] == [30, 0, 100, 40, 10, 20, 60]
    assert t["depth"] == [0, 0, 0, 1, 2, 1, 0]


def test_event_details(client: Any) -> None:
    d = client.get(f"{BASE}/event", query_string={**HAND, "index": 0}).json
    assert d["name"] == "load" and d["phase"] == "B" and d["category"] == "io"
    assert d["dur_us"] == 30 and d["start_us"] == 1000 and d["track_name"] == "trainer / loader"
    assert d["args"] == {"file": "a.bin", "bytes": 12}
    d = client.get(f"{BASE}/event", query_string={**HAND, "index": 3}).json
    assert (d["name"], d["self_us"], d["depth"], d["args"]) == ("matmul", 30, 1, {"k": 1})


@pytest.mark.parametrize("index", ["7", "-1", "x", ""])
def test_event_index_is_checked(client: Any, index: str) -> None:
    answer = client.get(f"{BASE}/event", query_string={**HAND, "index": index})
    assert answer.status_code == 400 and "index" in answer.json["error"]


def test_ops_table(client: Any) -> None:
    rows = client.get(f"{BASE}/ops", query_string=HAND).json["ops"]
    assert rows[:2] == [
        {"name": "ProfilerStep#4", "category": "user_annotation", "count": 1, "total_us": 60, "self_us": 60},
        {"name": "matmul", "category": "cpu_op", "count": 2, "total_us": 60, "self_us": 50},
    ]
    assert len(rows) == 5 and "tick" not in {r["name"] for r in rows}  # instants have no time


def test_steps(client: Any) -> None:
    steps = client.get(f"{BASE}/steps", query_string=HAND).json
    assert steps["steps"] == [{"step": 3, "ts_us": 0, "dur_us": 100}, {"step": 4, "ts_us": 100, "dur_us": 60}]
    assert steps["summary"]["mean_us"] == 80 and steps["note"] is None
    none = client.get(f"{BASE}/steps", query_string={"run": "a", "session": "s2", "worker": "w1"}).json
    assert none["steps"] == [] and none["summary"] is None and "ProfilerStep" in none["note"]


@pytest.mark.parametrize("route", ["timeline", "event", "ops", "steps"])
def test_unknown_traces_and_missing_parameters(client: Any, route: str) -> None:
    extra = {"index": 0} if route == "event" else {}
    assert client.get(f"{BASE}/{route}", query_string={**HAND, "run": "nope", **extra}).status_code == 404
    for missing in ("session", "worker"):
        other = {**HAND, missing: "nope", **extra}
        assert client.get(f"{BASE}/{route}", query_string=other).status_code == 404
        gone = {k: v for k, v in {**HAND, **extra}.items() if k != missing}
        answer = client.get(f"{BASE}/{route}", query_string=gone)
        assert answer.status_code == 400 and missing in answer.json["error"]


@pytest.mark.parametrize("route", ["timeline", "ops", "steps"])
def test_a_trace_that_is_not_json_is_a_500_naming_it(client: Any, route: str) -> None:
    answer = client.get(f"{BASE}/{route}", query_string={"run": "bad", "session": "s1", "worker": "w0"})
    assert answer.status_code == 500 and "not trace-event JSON" in answer.json["error"]
    assert "w0.pt.trace.json.gz" in answer.json["error"]


def test_names_are_escaped_in_json(make_client: Any, tmp_path: Path) -> None:
    import tbkit

    with tbkit.SummaryWriter(str(tmp_path / "r")) as w:
        w.add_trace(
            [{"ph": "X", "name": "<script>", "ts": 0, "dur": 1, "pid": 1, "tid": 1}], session="s", worker="w"
        )
    answer = make_client(tmp_path).get(
        f"{BASE}/timeline", query_string={"run": "r", "session": "s", "worker": "w"}
    )
    assert b"<script>" not in answer.data and answer.json["names"] == ["<script>"]


def test_torch_trace_handler_output(torch_trace_dir: Path) -> None:
    """torch's layout (``<run>/<worker>.<timestamp>.pt.trace.json``) through the server's provider."""
    provider = MultiLogdirProvider([("", str(torch_trace_dir))])
    provider.reload()
    client = create_app(provider).test_client()
    listing = client.get(f"{BASE}/traces").json
    (entry,) = listing["torch"]
    assert entry["worker"] == "w" and entry["session"].isdigit()
    query = {"run": "torch", "session": entry["session"], "worker": "w"}
    t = client.get(f"{BASE}/timeline", query_string=query).json
    (path,) = torch_trace_dir.glob("torch/*.pt.trace.json")
    raw = trace_json(path)["traceEvents"]
    assert t["events"] == sum(e["ph"] in ("X", "i", "I") for e in raw) == len(t["ts"])
    assert t["events_total"] == len(raw)
    rows = client.get(f"{BASE}/ops", query_string=query).json["ops"]
    linear = next(r for r in rows if r["name"] == "aten::linear")
    durations = [e["dur"] for e in raw if e["ph"] == "X" and e["name"] == "aten::linear"]
    assert linear["count"] == len(durations) and linear["total_us"] == pytest.approx(sum(durations))
    steps = client.get(f"{BASE}/steps", query_string=query).json
    assert [s["step"] for s in steps["steps"]] == [1, 2]
