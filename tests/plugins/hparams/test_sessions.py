"""The hparams kind's session queries: installed as every provider's hparams queries, over any provider."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from tbkit.plugins.hparams import sessions
from tbkit.plugins.hparams.api import Status
from tbkit.plugins.hparams.summary import session_end_pb, session_start_pb
from tbkit.proto import summary_pb2
from tbkit.provider import InMemoryProvider, SessionStatus


def _spec(summary: summary_pb2.Summary, step: int = 0) -> dict:
    (value,) = summary.value
    content = value.metadata.plugin_data.content
    return {"plugin": "hparams", "content": content, "points": [(step, 1.0, np.zeros(0, dtype=np.float32))]}


def _provider() -> InMemoryProvider:
    data = {}
    for i, lr in enumerate([0.1, 0.01]):
        start = session_start_pb({"lr": lr, "opt": "adam"}, start_time_secs=1.0 + i)
        end = session_end_pb(Status.SUCCESS, end_time_secs=5.0)
        data[f"s{i}"] = {
            start.value[0].tag: _spec(start),
            end.value[0].tag: _spec(end),
            "loss": {"points": [(0, 1.0, 1.0 + i), (9, 2.0, 0.5 + i)]},
        }
    return InMemoryProvider(data)


def test_the_provider_answers_with_the_kinds_queries() -> None:
    provider = _provider()
    experiment = provider.list_hyperparameters()
    assert experiment == sessions.list_hyperparameters(provider)
    assert {h.name for h in experiment.hyperparameters} == {"lr", "opt"}
    assert [m.tag for m in experiment.metrics] == ["loss"]
    groups = provider.read_hyperparameters()
    assert groups == sessions.read_hyperparameters(provider)
    assert [g.sessions[0].status for g in groups] == [SessionStatus.SUCCESS] * 2
    assert sorted(g.metrics[0].value for g in groups) == [0.5, 1.5]


def test_importing_the_provider_alone_installs_the_queries() -> None:
    """``tbkit.provider`` imports no kind, yet any provider answers hparams queries on a bare import."""
    code = (
        "import sys, tbkit.provider as p\n"
        "from tbkit.provider import _hparams_hook\n"
        "assert _hparams_hook.hparams_queries() is sys.modules['tbkit.plugins.hparams.sessions']\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
