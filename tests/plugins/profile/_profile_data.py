"""Fixture logdirs of profiler traces: hand-made (tbkit's writer) and torch.profiler's.

(This directory has no ``__init__.py``: as a package it would be named ``profile``, the
standard library's module; hence the unique module names here.)"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import tbkit

__all__ = ["HAND_EVENTS", "profile_logdir", "torch_trace_dir", "trace_json", "write_torch_trace"]

# Two threads of process 7 with names; nested X events, a B/E pair, an instant, a flow and a counter.
HAND_EVENTS: list[dict[str, Any]] = [
    {"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "trainer"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 2, "args": {"name": "loader"}},
    {"ph": "M", "name": "thread_sort_index", "pid": 7, "tid": 2, "args": {"sort_index": 0}},
    {"ph": "M", "name": "thread_sort_index", "pid": 7, "tid": 1, "args": {"sort_index": 1}},
    {
        "ph": "X",
        "name": "ProfilerStep#3",
        "cat": "user_annotation",
        "ts": 1000,
        "dur": 100,
        "pid": 7,
        "tid": 1,
    },
    {
        "ph": "X",
        "name": "matmul",
        "cat": "cpu_op",
        "ts": 1010,
        "dur": 40,
        "pid": 7,
        "tid": 1,
        "args": {"k": 1},
    },
    {"ph": "X", "name": "add", "cat": "cpu_op", "ts": 1020, "dur": 10, "pid": 7, "tid": 1},
    {"ph": "X", "name": "matmul", "cat": "cpu_op", "ts": 1060, "dur": 20, "pid": 7, "tid": 1},
    {
        "ph": "X",
        "name": "ProfilerStep#4",
        "cat": "user_annotation",
        "ts": 1100,
        "dur": 60,
        "pid": 7,
        "tid": 1,
    },
    {"ph": "B", "name": "load", "cat": "io", "ts": 1000, "pid": 7, "tid": 2, "args": {"file": "a.bin"}},
    {"ph": "E", "ts": 1030, "pid": 7, "tid": 2, "args": {"bytes": 12}},
    {"ph": "i", "name": "tick", "ts": 1040, "pid": 7, "tid": 2, "s": "t"},
    {"ph": "s", "name": "flow", "id": 1, "ts": 1010, "pid": 7, "tid": 1},
    {"ph": "C", "name": "memory", "ts": 1000, "pid": 7, "args": {"bytes": 5}},
]


def write_torch_trace(directory: Path) -> Path:
    """Profile a tiny model's training steps with ``torch.profiler.tensorboard_trace_handler``."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 8)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=1),
        on_trace_ready=torch.profiler.tensorboard_trace_handler(str(directory), worker_name="w"),
    ) as prof:
        for _ in range(4):
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            prof.step()
    (path,) = directory.glob("*.pt.trace.json*")
    return path


@pytest.fixture(scope="session")
def torch_trace_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A logdir whose run ``torch`` holds one trace written by torch's TensorBoard trace handler."""
    root = tmp_path_factory.mktemp("torch_profile")
    write_torch_trace(root / "torch")
    return root


@pytest.fixture(scope="session")
def profile_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run ``a``: the hand-made trace (session ``s1``, worker ``w0``) and one without steps
    (``s2``/``w1``); run ``bad``: a trace that is not JSON."""
    root = tmp_path_factory.mktemp("profile")
    with tbkit.SummaryWriter(str(root / "a")) as w:
        w.add_scalar("loss", 1.0, 0)
        w.add_trace({"traceEvents": HAND_EVENTS}, session="s1", worker="w0")
        w.add_trace(
            [{"ph": "X", "name": "solo", "ts": 5, "dur": 2, "pid": 1, "tid": 1}], session="s2", worker="w1"
        )
    bad = root / "bad" / "plugins" / "profile" / "s1" / "w0.pt.trace.json.gz"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(gzip.compress(b"not json"))
    return root


def trace_json(path: Path) -> dict[str, Any]:
    """A trace file's JSON (plain or gzip'ed)."""
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
