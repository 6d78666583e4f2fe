"""``tbkit.plugins.profile.write`` (public as ``tbkit.profiler``): torch profiler traces and
any Chrome trace laid out for TensorBoard's profile tools."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest

from tbkit import SummaryWriter

# The module is imported by the tests, not at collection (as tbkit.profiler was: importing
# that makes it an attribute of the tbkit package, which tests/test_import.py's surface
# check does not list).


def default_worker() -> str:
    from tbkit.plugins.profile.write import default_worker

    return default_worker()


def trace_handler(*args, **kwargs):
    from tbkit.plugins.profile.write import trace_handler

    return trace_handler(*args, **kwargs)


def trace_path(*args, **kwargs) -> str:
    from tbkit.plugins.profile.write import trace_path

    return trace_path(*args, **kwargs)


def write_trace(*args, **kwargs) -> str:
    from tbkit.plugins.profile.write import write_trace

    return write_trace(*args, **kwargs)


def load_trace(trace):
    from tbkit.plugins.profile.write import load_trace

    return load_trace(trace)


SESSION = re.compile(r"\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d(_\d+)?")
# The file names the two viewers recognise: the TensorBoard profile plugin's
# "<host>.trace.json.gz" and torch-tb-profiler's "<worker>[.<digits>].pt.trace.json[.gz]".
PROFILE_PLUGIN = re.compile(r"(?:(.*)\.)?trace\.json\.gz")
TORCH_TB_PROFILER = re.compile(r"^(.*?)(\.\d+)?\.pt\.trace\.json(?:\.gz)?$")

EVENTS = {"traceEvents": [{"name": "step", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 1}]}


def _traces(logdir: Path) -> list[Path]:
    return sorted((logdir / "plugins" / "profile").glob("*/*"))


def _read(path: Path) -> object:
    return json.loads(gzip.decompress(path.read_bytes()))


@pytest.mark.interop
@pytest.mark.filterwarnings("ignore:Warning. Profiler clears events:UserWarning")
def test_a_real_torch_profiler_run_writes_gzipped_traces_in_sessions(tmp_path: Path) -> None:
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=2)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=schedule,
        on_trace_ready=trace_handler(str(tmp_path), worker_name="rank0"),
    ) as prof:
        for _ in range(6):
            model(torch.randn(4, 8)).sum().backward()
            prof.step()
    files = _traces(tmp_path)
    assert len(files) == 2  # one per profiling cycle, each in its own session
    assert len({f.parent.name for f in files}) == 2
    for path in files:
        assert SESSION.fullmatch(path.parent.name)
        assert path.name == "rank0.pt.trace.json.gz"
        assert PROFILE_PLUGIN.fullmatch(path.name).group(1) == "rank0.pt"
        assert TORCH_TB_PROFILER.match(path.name).group(1) == "rank0"
        trace = _read(path)
        names = {e.get("name", "") for e in trace["traceEvents"]}
        assert any("aten::linear" in n or "aten::addmm" in n for n in names)


@pytest.mark.interop
def test_plain_json_traces_when_gzip_is_off(tmp_path: Path) -> None:
    import torch

    handler = trace_handler(tmp_path, use_gzip=False)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], on_trace_ready=handler):
        torch.ones(3, 3).matmul(torch.ones(3, 3))
    [path] = _traces(tmp_path)
    assert path.name == f"{default_worker()}.pt.trace.json"
    assert isinstance(json.loads(path.read_text())["traceEvents"], list)


@pytest.mark.parametrize("form", ["dict", "list", "json", "json.gz", "bytes", "gz-bytes", "pathlib"])
def test_add_trace_accepts_dicts_lists_paths_and_bytes(tmp_path: Path, form: str) -> None:
    value: object = EVENTS["traceEvents"] if form == "list" else EVENTS
    raw = json.dumps(value).encode()
    trace: object = value
    if form in ("json", "pathlib"):
        (tmp_path / "in.json").write_bytes(raw)
        trace = str(tmp_path / "in.json") if form == "json" else tmp_path / "in.json"
    elif form == "json.gz":
        (tmp_path / "in.json.gz").write_bytes(gzip.compress(raw))
        trace = str(tmp_path / "in.json.gz")
    elif form == "bytes":
        trace = raw
    elif form == "gz-bytes":
        trace = gzip.compress(raw)
    with SummaryWriter(str(tmp_path / "run")) as writer:
        written = writer.add_trace(trace, session="s1", worker="jax-host")
    assert written == trace_path(str(tmp_path / "run"), "s1", "jax-host")
    assert _read(Path(written)) == value


def test_add_trace_defaults_to_a_new_session_each_time(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path)) as writer:
        first = writer.add_trace(EVENTS)
        second = writer.add_trace(EVENTS)
    assert first != second
    assert os.path.basename(first) == os.path.basename(second) == f"{default_worker()}.pt.trace.json.gz"
    assert all(SESSION.fullmatch(Path(p).parent.name) for p in (first, second))


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        (b"not json at all", "not trace-event JSON"),
        (gzip.compress(b"{truncated"), "not trace-event JSON"),
        (b"\x1f\x8b broken gzip", "not trace-event JSON"),
        ({"events": []}, "no 'traceEvents' key"),
        ({"traceEvents": {"a": 1}}, "'traceEvents' of type dict"),
        ([{"ph": "X"}, 3], "trace event 1"),
        (b'"just a string"', "JSON str"),
        ("trace.txt", ".json or .json.gz"),
    ],
)
def test_what_is_not_trace_event_json_is_refused_by_name(tmp_path: Path, trace: object, message: str) -> None:
    with pytest.raises(ValueError, match="trace") as info:
        write_trace(str(tmp_path), trace, session="s", worker="w")
    assert message in str(info.value)
    assert not (tmp_path / "plugins").exists()


def test_wrong_kinds_and_unsafe_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="trace"):
        load_trace(42)
    with pytest.raises(ValueError, match="session"):
        write_trace(str(tmp_path), EVENTS, session="../escape", worker="w")
    with pytest.raises(ValueError, match="worker"):
        write_trace(str(tmp_path), EVENTS, session="s", worker="a/b")
    with pytest.raises(ValueError, match="worker_name"):
        trace_handler(str(tmp_path), worker_name="..")
    with pytest.raises(OSError, match=r"missing\.json"):
        write_trace(str(tmp_path), str(tmp_path / "missing.json"))
    assert not (tmp_path / "plugins").exists()
