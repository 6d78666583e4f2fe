"""PR curves routes: tags, curves per step, trimmed tails, counts, downsampling, errors; tbkit and torch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.plugins.pr_curves.summary import compute_curve
from tbkit.server.app import create_app

LABELS = np.array([1, 0, 1, 1, 0, 0, 1, 0])
SCORES = np.array([0.9, 0.1, 0.65, 0.4, 0.55, 0.2, 0.8, 0.3])
STEPS = (0, 5, 10)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run ``tb`` written by tbkit (3 steps, 11 thresholds, weighted curve), ``torch`` by torch."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    root = tmp_path_factory.mktemp("pr")
    with tbkit.SummaryWriter(str(root / "tb")) as w:
        for step in STEPS:
            w.add_pr_curve("pr/cat", LABELS, np.clip(SCORES + step / 100, 0, 1), step, num_thresholds=11)
        w.add_pr_curve("pr/weighted", LABELS, SCORES, 0, num_thresholds=5, weights=np.full(8, 0.5))
        w.add_scalar("loss", 1.0, 0)
    torch_writer = TorchWriter(str(root / "torch"))
    for step in (1, 2):
        torch_writer.add_pr_curve("torch/pr", LABELS, SCORES, step)
    torch_writer.close()
    return root


@pytest.fixture(scope="module")
def client(logdir: Path) -> Any:
    return create_app(tbkit.read(str(logdir)).provider).test_client()


def get(client: Any, **query: Any) -> Any:
    resp = client.get("/data/plugin/pr_curves/pr_curves", query_string=query)
    assert resp.status_code == 200, resp.json
    return resp.json


def test_tags_list_pr_curve_series_only(client: Any) -> None:
    answer = client.get("/data/plugin/pr_curves/tags").json
    assert set(answer) == {"tb", "torch"}
    assert set(answer["tb"]) == {"pr/cat", "pr/weighted"}
    assert answer["tb"]["pr/cat"]["max_step"] == 10
    assert answer["torch"] == {"torch/pr": {"display_name": "", "description": "", "max_step": 2}}


def test_the_tab_is_listed_with_its_script(client: Any) -> None:
    entry = client.get("/data/plugins_listing").json["pr_curves"]
    assert entry["enabled"] and entry["tab_name"] == "PR Curves"
    assert entry["script"].endswith("/plugins/pr_curves/pr_curves.js")


def test_curves_per_step_match_the_logged_rows(client: Any) -> None:
    answer = get(client, run="tb", tag="pr/cat")
    assert [c["step"] for c in answer] == list(STEPS)
    for curve, step in zip(answer, STEPS, strict=True):
        tp, fp, tn, fn, precision, recall = compute_curve(LABELS, np.clip(SCORES + step / 100, 0, 1), 11)
        n = len(curve["thresholds"])
        assert curve["trimmed"] == 11 - n
        assert curve["thresholds"] == pytest.approx(np.linspace(0, 1, 11)[:n].tolist())
        assert curve["tp"] == tp[:n].astype(int).tolist() and curve["fp"] == fp[:n].astype(int).tolist()
        assert curve["tn"] == tn[:n].astype(int).tolist() and curve["fn"] == fn[:n].astype(int).tolist()
        assert curve["precision"] == pytest.approx(precision[:n].tolist(), abs=1e-6)
        assert curve["recall"] == pytest.approx(recall[:n].tolist(), abs=1e-6)
        assert all(isinstance(v, int) for v in curve["tp"])


def test_the_tail_where_nothing_is_predicted_positive_is_trimmed(client: Any) -> None:
    (curve,) = [c for c in get(client, run="tb", tag="pr/cat") if c["step"] == 0]
    # The highest score is 0.9: thresholds above it (1.0) predict nothing positive.
    assert curve["thresholds"][-1] == pytest.approx(0.9)
    assert curve["trimmed"] == 1
    assert curve["tp"][-1] + curve["fp"][-1] > 0


def test_weighted_counts_stay_fractional(client: Any) -> None:
    (curve,) = get(client, run="tb", tag="pr/weighted")
    assert curve["tp"][0] == pytest.approx(2.0) and curve["fp"][0] == pytest.approx(2.0)
    assert any(isinstance(v, float) for v in curve["tp"] + curve["fp"])


def test_steps_keeps_the_latest(client: Any) -> None:
    answer = get(client, run="tb", tag="pr/cat", steps=2)
    assert len(answer) == 2 and answer[-1]["step"] == 10


def test_torch_written_curves(client: Any) -> None:
    answer = get(client, run="torch", tag="torch/pr")
    assert [c["step"] for c in answer] == [1, 2]
    curve = answer[0]
    assert curve["tp"][0] == 4 and curve["fp"][0] == 4 and curve["tn"][0] == 0 and curve["fn"][0] == 0
    assert curve["recall"][0] == pytest.approx(1.0) and curve["precision"][0] == pytest.approx(0.5)
    assert len(curve["thresholds"]) + curve["trimmed"] == 127


def test_a_curve_with_nothing_positive_is_empty() -> None:
    from tbkit.provider import InMemoryProvider

    data = compute_curve(np.array([0, 0]), np.array([0.0, 0.0]), 3)
    data[1] = 0  # no false positives either: nothing is ever predicted positive
    provider = InMemoryProvider({"r": {"p": {"plugin": "pr_curves", "points": [(0, 1.0, data)]}}})
    (curve,) = create_app(provider).test_client().get("/data/plugin/pr_curves/pr_curves?run=r&tag=p").json
    assert curve["trimmed"] == 3 and curve["thresholds"] == [] and curve["tp"] == []


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"run": "tb"}, 400),
        ({"tag": "pr/cat"}, 400),
        ({"run": "nope", "tag": "pr/cat"}, 404),
        ({"run": "tb", "tag": "nope"}, 404),
        ({"run": "tb", "tag": "loss"}, 404),
        ({"run": "tb", "tag": "pr/cat", "steps": "0"}, 400),
        ({"run": "tb", "tag": "pr/cat", "steps": "x"}, 400),
    ],
)
def test_errors(client: Any, query: dict[str, str], status: int) -> None:
    resp = client.get("/data/plugin/pr_curves/pr_curves", query_string=query)
    assert resp.status_code == status and "error" in resp.json
