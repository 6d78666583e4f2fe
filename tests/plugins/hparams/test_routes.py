"""HParams routes: the experiment and the sessions (hyperparameters, status, metric last/min/max)
on logdirs written by tbkit, by torch's ``add_hparams`` and by TensorFlow's ``hp.hparams``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.demo import write_demo_logdir
from tbkit.hparams import HParam, Interval, Metric
from tbkit.server.app import create_app

TF_RICH = Path(__file__).resolve().parents[2] / "interop" / "fixtures" / "tf_rich"
EXPERIMENT = "/data/plugin/hparams/experiment"
SESSIONS = "/data/plugin/hparams/sessions"


def _by_name(sessions: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in sessions}


def _series(logdir: Path, run: str, tag: str) -> np.ndarray:
    df = tbkit.read(str(logdir), tags=tag).scalars()
    return df[df["run"].astype(str) == run]["value"].to_numpy(dtype=np.float64)


@pytest.fixture(scope="module")
def demo_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    write_demo_logdir(str(root), steps=30)
    return root


@pytest.fixture(scope="module")
def mixed_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sessions with different key sets, a None value, a long metric series with a spike, NaN."""
    root = tmp_path_factory.mktemp("mixed")
    with tbkit.SummaryWriter(str(root)) as w:
        w.add_hparams_config(
            [HParam("lr", Interval(1e-4, 1.0))], [Metric("loss"), Metric("acc", group="eval")]
        )
    rng = np.random.default_rng(0)
    for i, hp in enumerate(
        [{"lr": 0.1, "opt": "sgd"}, {"lr": 0.01, "layers": 3}, {"lr": 0.001, "opt": None}]
    ):
        with tbkit.SummaryWriter(str(root / f"s{i}")) as w:
            values = 1.0 + rng.random(5000)
            values[1234] = -7.5 + i  # a spike a downsampled read could drop
            for step, v in enumerate(values):
                w.add_scalar("loss", float(v), step)
            w.add_hparams(hp, {}, global_step=len(values), status="failure" if i == 2 else "success")
        with tbkit.SummaryWriter(str(root / f"s{i}" / "eval")) as w:
            for step in range(3):
                w.add_scalar("acc", [0.5, float("nan"), 0.75 + i / 10][step], step)
    return root


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """torch's add_hparams: each session a ``<run>/<timestamp>`` sub-run; key sets differ."""
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("torch_hp")
    for i, hp in enumerate(
        [{"lr": 0.1, "bs": 32, "opt": "sgd"}, {"lr": 0.01, "bs": 64}, {"lr": 0.001, "bs": 128}]
    ):
        w = SummaryWriter(str(root / f"run{i}"))
        for step in range(5):
            w.add_scalar("train/loss", 1.0 / (step + 1 + i), step)
        w.add_hparams(hp, {"hparam/accuracy": 0.5 + i / 10, "hparam/loss": 0.3 - i / 20})
        w.close()
    return root


def test_experiment_tf(make_client: Any) -> None:
    answer = make_client(TF_RICH).get(EXPERIMENT).json
    hparams = {h["name"]: h for h in answer["hparams"]}
    assert hparams["lr"]["type"] == "interval" and hparams["lr"]["domain"] == [0.0001, 1.0]
    assert hparams["optimizer"]["type"] == "discrete_string" and hparams["optimizer"]["domain"] == [
        "adam",
        "sgd",
    ]
    assert hparams["batchnorm"]["type"] == "discrete_bool"
    assert hparams["dropout"]["differs"] is True
    metrics = {m["name"]: m for m in answer["metrics"]}
    assert set(metrics) == {"accuracy", "validation/loss"}
    assert metrics["accuracy"]["display_name"] == "Accuracy"
    assert metrics["validation/loss"] == {
        "name": "validation/loss",
        "tag": "loss",
        "group": "validation",
        "display_name": "",
        "description": "",
        "dataset_type": "validation",
    }
    assert answer["declared"] is True


def test_sessions_tf(make_client: Any) -> None:
    sessions = _by_name(make_client(TF_RICH).get(SESSIONS).json)
    assert set(sessions) == {"session_a", "session_b"}
    a, b = sessions["session_a"], sessions["session_b"]
    assert a["hparams"] == {"batchnorm": True, "dropout": 0.1, "lr": 0.01, "optimizer": "adam"}
    assert "batchnorm" not in b["hparams"]  # the key sets differ
    for name, s in sessions.items():
        assert s["run"] == name and s["status"] == "unknown"
        acc = _series(TF_RICH, name, "accuracy")
        entry = s["metrics"]["accuracy"]
        assert entry["run"] == name and entry["tag"] == "accuracy"
        assert (entry["last"], entry["min"], entry["max"], entry["count"]) == pytest.approx(
            (acc[-1], acc.min(), acc.max(), len(acc))
        )
        val = s["metrics"]["validation/loss"]
        assert val["run"] == f"{name}/validation"
        assert val["last"] == pytest.approx(_series(TF_RICH, f"{name}/validation", "loss")[-1])


def test_demo(make_client: Any, demo_logdir: Path) -> None:
    client = make_client(demo_logdir)
    assert [h["name"] for h in client.get(EXPERIMENT).json["hparams"]] == ["lr", "optimizer", "layers"]
    sessions = _by_name(client.get(SESSIONS).json)
    assert set(sessions) == {"lr_0.1", "lr_0.03", "lr_0.01"}
    assert sessions["lr_0.01"]["hparams"] == {"layers": 2.0, "lr": 0.01, "optimizer": "adam"}
    assert sessions["lr_0.1"]["status"] == "success"
    final = sessions["lr_0.03"]["metrics"]["hparam/final_loss"]
    assert final["last"] == pytest.approx(math.exp(-0.03 * 29 / 10), rel=1e-6)
    assert final["step"] == 29


def test_torch_sub_runs(make_client: Any, torch_logdir: Path) -> None:
    client = make_client(torch_logdir)
    sessions = client.get(SESSIONS).json
    assert len(sessions) == 3
    for s in sessions:
        parent, _, stamp = s["name"].partition("/")
        assert parent.startswith("run") and float(stamp) > 0  # <run>/<timestamp>
        i = int(parent[3:])
        assert s["hparams"]["lr"] == pytest.approx([0.1, 0.01, 0.001][i])
        assert ("opt" in s["hparams"]) is (i == 0)
        assert s["metrics"]["hparam/accuracy"]["last"] == pytest.approx(0.5 + i / 10)
        assert s["metrics"]["hparam/accuracy"]["run"] == s["name"]
    names = {h["name"] for h in client.get(EXPERIMENT).json["hparams"]}
    assert names == {"lr", "bs", "opt"}


def test_min_max_are_over_the_full_series(make_client: Any, mixed_logdir: Path) -> None:
    # Even when the scalars are served downsampled, the extremes are exact.
    client = make_client(mixed_logdir, samples_per_plugin={"scalars": 10})
    sessions = _by_name(client.get(SESSIONS).json)
    for i in range(3):
        values = _series(mixed_logdir, f"s{i}", "loss")
        entry = sessions[f"s{i}"]["metrics"]["loss"]
        assert entry["min"] == pytest.approx(-7.5 + i) == pytest.approx(values.min())
        assert entry["max"] == pytest.approx(values.max())
        assert entry["last"] == pytest.approx(values[-1])
        assert entry["count"] == 5000 and entry["step"] == 4999


def test_non_finite_values_are_skipped_by_min_max(make_client: Any, mixed_logdir: Path) -> None:
    sessions = _by_name(make_client(mixed_logdir).get(SESSIONS).json)
    acc = sessions["s1"]["metrics"]["eval/acc"]
    assert acc["run"] == "s1/eval" and acc["count"] == 3
    assert (acc["min"], acc["max"], acc["last"]) == pytest.approx((0.5, 0.85, 0.85))


def test_differing_keys_and_none(make_client: Any, mixed_logdir: Path) -> None:
    client = make_client(mixed_logdir)
    sessions = _by_name(client.get(SESSIONS).json)
    assert sessions["s0"]["hparams"] == {"lr": 0.1, "opt": "sgd"}
    assert sessions["s1"]["hparams"] == {"lr": 0.01, "layers": 3.0}
    assert sessions["s2"]["hparams"] == {"lr": 0.001}  # None is left out
    assert sessions["s2"]["status"] == "failure"
    hparams = {h["name"]: h for h in client.get(EXPERIMENT).json["hparams"]}
    assert set(hparams) == {"lr", "opt", "layers"}
    assert hparams["lr"]["domain"] == [1e-4, 1.0]  # declared
    assert hparams["opt"]["domain"] == ["sgd"]  # inferred


def test_status_filter(make_client: Any, mixed_logdir: Path) -> None:
    client = make_client(mixed_logdir)
    assert [s["name"] for s in client.get(SESSIONS, query_string={"status": "failure"}).json] == ["s2"]
    both = client.get(SESSIONS, query_string={"status": "success,failure"}).json
    assert [s["name"] for s in both] == ["s0", "s1", "s2"]
    assert client.get(SESSIONS, query_string={"status": "running"}).json == []
    bad = client.get(SESSIONS, query_string={"status": "done"})
    assert bad.status_code == 400 and "status" in bad.json["error"]


def test_no_sessions(make_client: Any, tmp_path: Path) -> None:
    with tbkit.SummaryWriter(str(tmp_path / "run")) as w:
        w.add_scalar("loss", 1.0, 0)
    client = make_client(tmp_path)
    assert client.get(SESSIONS).json == []
    answer = client.get(EXPERIMENT).json
    assert answer["hparams"] == [] and answer["declared"] is False
    assert client.get("/data/plugins_listing").json["hparams"]["enabled"] is False


def test_listing_and_static_files(make_client: Any, demo_logdir: Path) -> None:
    client = make_client(demo_logdir)
    entry = client.get("/data/plugins_listing").json["hparams"]
    assert entry["enabled"] is True and entry["tab_name"] == "HParams"
    assert entry["script"].endswith("/plugins/hparams/hparams.js")
    for name in (
        "hparams.js",
        "model.js",
        "axes.js",
        "parcoords.js",
        "matrix.js",
        "table.js",
        "filters.js",
        "session.js",
    ):
        resp = client.get(f"/static/plugins/hparams/{name}")
        assert resp.status_code == 200 and resp.mimetype == "text/javascript", name
    assert client.get("/static/plugins/hparams/hparams.css").status_code == 200


def test_names_are_escaped_in_json(tmp_path: Path) -> None:
    with tbkit.SummaryWriter(str(tmp_path / "<b>run")) as w:
        w.add_hparams({"<script>": "</script><img src=x>"}, {"m&m": 1.0})
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    body = client.get(SESSIONS).get_data(as_text=True)
    assert "<" not in body and ">" not in body and "&" not in body
    (session,) = client.get(SESSIONS).json
    assert session["name"] == "<b>run"
    assert session["hparams"] == {"<script>": "</script><img src=x>"}
    assert session["metrics"]["m&m"]["last"] == 1.0
