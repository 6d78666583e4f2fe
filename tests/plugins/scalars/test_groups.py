"""The scalar routes of run groups: ``groups``, ``groups_download``, ``group_options``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit.plugins.colors import assign_colors

STEPS = 300
URL = "/data/plugin/scalars/groups"


@pytest.fixture(scope="module")
def seeds_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seeds")
    rng = np.random.default_rng(3)
    for group, level in (("a", 1.0), ("b", 5.0)):
        for seed in range(3):
            with tbkit.SummaryWriter(str(root / f"{group}_seed{seed}")) as w:
                for step in range(0, STEPS, 1 + (seed == 2)):  # seed 2: every other step
                    w.add_scalar("loss", level + float(rng.normal(0, 0.5)), step)
                w.add_hparams({"lr": 0.1 if group == "a" else 0.01}, {"final": 0.0})
    return root


@pytest.fixture
def groups_client(seeds_logdir: Path, make_client: Any) -> Any:
    return make_client(seeds_logdir)


def _pandas(logdir: Path) -> pd.DataFrame:
    df = tbkit.read(str(logdir), tags="loss").scalars()
    df = df.assign(group=df["run"].astype(str).str[0])
    g = df.groupby(["group", "step"])["value"]
    return pd.DataFrame({"mean": g.mean(), "std": g.std(), "n": g.count()}).reset_index()


def test_groups_equal_pandas_mean_plus_minus_std(groups_client: Any, seeds_logdir: Path) -> None:
    answer = groups_client.get(f"{URL}?tag=loss&group_by=(.*)_seed%5Cd%2B&points=10000").json
    assert list(answer) == ["a", "b"]
    want = _pandas(seeds_logdir)
    for group, got in answer.items():
        assert got["color"] == assign_colors(["a", "b"])[group]  # distinct palette colours
        assert got["members"] == [f"{group}_seed{i}" for i in range(3)]
        ref = want[want.group == group]
        assert got["step"] == ref["step"].tolist() and got["total"] == got["shown"] == STEPS
        np.testing.assert_allclose(got["value"], ref["mean"], rtol=1e-12)
        np.testing.assert_allclose(got["lower"], ref["mean"] - ref["std"], rtol=1e-12)
        np.testing.assert_allclose(got["upper"], ref["mean"] + ref["std"], rtol=1e-12)
        assert got["count"] == ref["n"].tolist()
        assert got["smoothed"] == got["value"]  # no smoothing asked


def test_downsampled_points_are_points_of_the_full_answer(groups_client: Any) -> None:
    full = groups_client.get(f"{URL}?tag=loss&group_by=%5E(.)&band=minmax&points=10000").json["a"]
    small = groups_client.get(f"{URL}?tag=loss&group_by=%5E(.)&band=minmax&points=40&smoothing=0.9").json["a"]
    assert small["shown"] <= 40 < small["total"] == STEPS
    at = {s: i for i, s in enumerate(full["step"])}
    for key in ("value", "lower", "upper", "count"):
        assert small[key] == [full[key][at[s]] for s in small["step"]]
    for extreme in (np.argmax(full["upper"]), np.argmin(full["lower"])):  # spikes of the band stay
        assert full["step"][extreme] in small["step"]
    assert small["smoothed"] != small["value"]


def test_step_range_runs_and_post_mapping(groups_client: Any) -> None:
    answer = groups_client.post(
        URL,
        json={
            "tag": "loss",
            "runs": ["a_seed0", "a_seed1", "b_seed0"],
            "groups": {"a_seed0": "mine", "a_seed1": "mine"},
            "stat": "median",
            "min_step": 10,
            "max_step": 19,
        },
    ).json
    assert set(answer) == {"mine", "b_seed0"}  # an unassigned run is a group of its own
    assert answer["mine"]["step"] == list(range(10, 20)) and answer["mine"]["in_range"] == 10
    assert answer["mine"]["members"] == ["a_seed0", "a_seed1"]
    assert set(answer["mine"]["count"]) == {2}
    assert answer["b_seed0"]["lower"] == answer["b_seed0"]["upper"] == answer["b_seed0"]["value"]


def test_group_by_hparam_and_options(groups_client: Any) -> None:
    assert groups_client.get("/data/plugin/scalars/group_options").json == {"hparams": ["lr"]}
    answer = groups_client.get(f"{URL}?tag=loss&group_by=hparam:lr").json
    assert list(answer) == ["lr=0.01", "lr=0.1"]
    assert answer["lr=0.1"]["members"] == ["a_seed0", "a_seed1", "a_seed2"]


def test_download_csv_is_the_full_resolution_library_answer(groups_client: Any, seeds_logdir: Path) -> None:
    resp = groups_client.get("/data/plugin/scalars/groups_download?tag=loss&group_by=(.*)_seed&format=csv")
    assert resp.status_code == 200
    assert "attachment" in resp.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(resp.get_data(as_text=True))))
    want = tbkit.read(str(seeds_logdir)).aggregate("(.*)_seed")
    want = want[want.tag == "loss"]
    assert len(rows) == len(want) == 2 * STEPS
    assert [float(r["lower"]) for r in rows] == want["lower"].tolist()  # written exactly
    assert [int(r["count"]) for r in rows] == want["count"].tolist()
    as_json = groups_client.get(
        "/data/plugin/scalars/groups_download?tag=loss&group_by=(.*)_seed&format=json"
    )
    records = json.loads(as_json.get_data(as_text=True))
    assert records[0]["group"] == "a" and records[0]["step"] == 0
    assert [r["upper"] for r in records] == want["upper"].tolist()  # exact


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("tag=loss", 400, "group_by"),
        ("tag=loss&group_by=(", 400, "not valid"),
        ("tag=loss&group_by=x&stat=mode", 400, "stat"),
        ("tag=loss&group_by=x&band=iqr", 400, "band"),
        ("tag=loss&groups=[1]", 400, "JSON object"),
        ("tag=loss&group_by=hparam:nope", 400, "no hyperparameter"),
        ("tag=nope&group_by=x", 404, "nope"),
        ("tag=loss&group_by=x&runs=ghost", 404, "ghost"),
        ("tag=loss&group_by=x&min_step=5&max_step=1", 400, "larger"),
    ],
)
def test_bad_requests(groups_client: Any, query: str, status: int, message: str) -> None:
    resp = groups_client.get(f"{URL}?{query}")
    assert resp.status_code == status
    assert message in resp.get_data(as_text=True)


def test_runs_with_commas_in_their_names_as_a_json_list(tmp_path: Path, make_client: Any) -> None:
    from urllib.parse import quote

    for run in ("x,seed0", "x,seed1", "y"):
        with tbkit.SummaryWriter(str(tmp_path / run)) as w:
            for step in range(4):
                w.add_scalar("loss", float(step) + (run == "x,seed1"), step)
    client = make_client(tmp_path)
    runs = quote(json.dumps(["x,seed0", "x,seed1"]))
    resp = client.get(f"/data/plugin/scalars/groups_download?tag=loss&group_by=(x)&format=json&runs={runs}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    records = json.loads(resp.get_data(as_text=True))
    assert {r["group"] for r in records} == {"x"} and [r["count"] for r in records] == [2] * 4
    assert [r["value"] for r in records] == [s + 0.5 for s in range(4)]
    bad = client.get(f"/data/plugin/scalars/groups_download?tag=loss&group_by=(x)&runs={quote('[1, 2]')}")
    assert bad.status_code == 400


@pytest.mark.parametrize("limit", [1, 2, 7, 40])
def test_samples_per_plugin_scalars_limits_each_group(
    seeds_logdir: Path, make_client: Any, limit: int
) -> None:
    client = make_client(seeds_logdir, samples_per_plugin={"scalars": limit})
    for answer in (
        client.get(f"{URL}?tag=loss&group_by=%5E(.)").json,
        client.post(URL, json={"tag": "loss", "group_by": "^(.)", "points": 1000}).json,
    ):
        assert set(answer) == {"a", "b"}
        for group in answer.values():
            assert 0 < group["shown"] == len(group["step"]) == len(group["lower"]) <= limit
            assert group["step"][-1] == STEPS - 1  # the latest step is always kept


def test_samples_per_plugin_scalars_all_keeps_every_step(seeds_logdir: Path, make_client: Any) -> None:
    client = make_client(seeds_logdir, samples_per_plugin={"scalars": None})
    for group in client.get(f"{URL}?tag=loss&group_by=%5E(.)").json.values():
        assert group["shown"] == group["total"] == STEPS and group["step"] == list(range(STEPS))
