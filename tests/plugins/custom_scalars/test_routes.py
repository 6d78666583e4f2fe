"""The custom scalars routes: the merged layout, multiline series by tag regex, margin bands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.demo import write_demo_logdir
from tbkit.plugins.colors import assign_colors

BASE = "/data/plugin/custom_scalars"


@pytest.fixture(scope="module")
def layout_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("custom")
    with tbkit.SummaryWriter(str(root / "alpha")) as w:
        w.add_custom_scalars({"A": {"old": ["Multiline", ["nothing"]]}})  # replaced by the next one
        w.add_custom_scalars(
            {
                "A": {"losses": ["Multiline", ["loss", "acc/(train|eval)$", "(broken"]]},
                "M": {"band": ["Margin", ["v", "v_lo", "v_hi"]]},
            }
        )
        for step in range(100):
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_scalar("xloss", 5.0, step)  # "loss" is matched at the start, as TensorBoard does
            w.add_scalar("acc/train", step / 100, step)
            w.add_scalar("acc/eval", step / 200, step)
            w.add_scalar("acc/eval_old", 0.0, step)
            w.add_scalar("v", float(step), step)
            if step % 2 == 0:  # the band on even steps only; the upper edge also on steps 0..49
                w.add_scalar("v_lo", step - 1.0, step)
            if step < 50:
                w.add_scalar("v_hi", step + 1.0, step)
        w.add_scalar("v_lo", -7.0, 10)  # written again: the last value of step 10 counts
    with tbkit.SummaryWriter(str(root / "beta")) as w:
        losses = ["Multiline", ["loss", "acc/(train|eval)$", "(broken"]]
        w.add_custom_scalars({"A": {"losses": losses, "more": ["Multiline", ["v"]]}, "B": {}})
        w.add_scalar("loss", 2.0, 0)
        w.add_scalar("v", 1.0, 0)  # no band tags in this run
    return root


@pytest.fixture
def cs_client(layout_logdir: Path, make_client: Any) -> Any:
    return make_client(layout_logdir)


def test_layout_merges_runs_as_tensorboard(cs_client: Any) -> None:
    answer = cs_client.get(f"{BASE}/layout").json
    assert answer["unreadable_runs"] == []
    cats = answer["categories"]
    assert [c["title"] for c in cats] == ["A", "M", "B"]
    assert [ch["title"] for ch in cats[0]["charts"]] == ["losses", "more"]  # same chart once, new appended
    assert cats[0]["charts"][0] == {
        "title": "losses",
        "kind": "multiline",
        "tags": ["loss", "acc/(train|eval)$", "(broken"],
    }
    assert cats[1]["charts"] == [
        {"title": "band", "kind": "margin", "series": [{"value": "v", "lower": "v_lo", "upper": "v_hi"}]}
    ]
    assert cats[2] == {"title": "B", "closed": False, "charts": []}


def test_multiline_series_match_regexes_at_the_start(cs_client: Any) -> None:
    body = {"tags": ["loss", "acc/(train|eval)$", "(broken"], "points": 30, "smoothing": 0.5}
    answer = cs_client.post(f"{BASE}/scalars", json=body).json
    assert answer["invalid"] == ["(broken"]
    assert {run: sorted(tags) for run, tags in answer["series"].items()} == {
        "alpha": ["acc/eval", "acc/train", "loss"],
        "beta": ["loss"],
    }
    loss = answer["series"]["alpha"]["loss"]
    colors = {f"{run}/{tag}": s["color"] for run, tags in answer["series"].items() for tag, s in tags.items()}
    assert colors == assign_colors(colors)  # the chart's series: distinct palette colours
    assert loss["total"] == 100 and loss["shown"] <= 30
    assert loss["smoothed"] != loss["value"]
    one = cs_client.get(f"{BASE}/scalars?tag=acc/train&runs=alpha").json["series"]
    assert list(one) == ["alpha"] and list(one["alpha"]) == ["acc/train"]
    assert one["alpha"]["acc/train"]["step"] == list(range(100))


def test_margin_band_uses_the_steps_both_edges_have(cs_client: Any) -> None:
    answer = cs_client.get(f"{BASE}/margin?value=v&lower=v_lo&upper=v_hi&points=10000").json
    assert sorted(answer) == ["alpha", "beta"]
    alpha = answer["alpha"]
    assert alpha["step"] == list(range(100)) and alpha["value"] == [float(s) for s in range(100)]
    band = alpha["band"]
    assert band["step"] == list(range(0, 50, 2)) and band["total"] == 25
    assert band["upper"] == [s + 1.0 for s in band["step"]]
    lower = dict(zip(band["step"], band["lower"], strict=True))
    assert lower[10] == -7.0 and lower[12] == 11.0
    assert answer["beta"]["band"] is None


def test_margin_band_is_downsampled_keeping_extremes(tmp_path: Path, make_client: Any) -> None:
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(str(tmp_path / "r")) as w:
        for step in range(5000):
            w.add_scalar("v", float(rng.normal()), step)
            w.add_scalar("lo", -1.0 - (step == 1234) * 50.0, step)
            w.add_scalar("hi", 1.0 + (step == 4321) * 50.0, step)
    answer = make_client(tmp_path).get(f"{BASE}/margin?value=v&lower=lo&upper=hi&points=100").json["r"]
    band = answer["band"]
    assert band["total"] == 5000 and band["shown"] <= 100 and answer["shown"] <= 100
    assert 1234 in band["step"] and 4321 in band["step"]
    assert min(band["lower"]) == -51.0 and max(band["upper"]) == 51.0


def test_demo_layout_and_listing(tmp_path: Path, make_client: Any) -> None:
    write_demo_logdir(str(tmp_path), steps=20)
    client = make_client(tmp_path)
    cats = client.get(f"{BASE}/layout").json["categories"]
    assert [(c["title"], [ch["kind"] for ch in c["charts"]]) for c in cats] == [
        ("training", ["multiline", "margin"])
    ]
    listing = client.get("/data/plugins_listing").json["custom_scalars"]
    assert listing["enabled"] and listing["tab_name"] == "Custom Scalars"
    assert listing["script"].endswith("/custom_scalars.js")


def test_no_layout_is_an_empty_answer(client: Any) -> None:
    assert client.get(f"{BASE}/layout").json == {"categories": [], "unreadable_runs": []}


@pytest.mark.parametrize(
    ("method", "query", "body", "status"),
    [
        ("get", "scalars", None, 400),
        ("post", "scalars", {"tags": "loss"}, 400),
        ("post", "scalars", {"tags": []}, 400),
        ("post", "scalars", {"tags": ["x"] * 101}, 400),
        ("get", "scalars?tag=loss&runs=ghost", None, 404),
        ("get", "scalars?tag=loss&points=0", None, 400),
        ("get", "margin?value=v&lower=v_lo", None, 400),
        ("get", "margin?value=v&lower=v_lo&upper=v_hi&smoothing=1", None, 400),
        ("get", "margin?value=v&lower=v_lo&upper=v_hi&min_step=10&max_step=5", None, 400),
    ],
)
def test_bad_requests(cs_client: Any, method: str, query: str, body: Any, status: int) -> None:
    resp = (
        getattr(cs_client, method)(f"{BASE}/{query}", json=body)
        if body is not None
        else cs_client.get(f"{BASE}/{query}")
    )
    assert resp.status_code == status


@pytest.mark.interop
def test_layout_and_margin_written_by_torch(tmp_path: Path, make_client: Any) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with TorchWriter(str(tmp_path / "torch")) as w:
        w.add_custom_scalars(
            {
                "Taiwan": {"twse": ["Multiline", ["twse/0050", "twse/2330"]]},
                "USA": {"aaple": ["Margin", ["aaple/v", "aaple/lo", "aaple/hi"]]},
            }
        )
        for step in range(10):
            w.add_scalar("twse/0050", step * 1.5, step)
            w.add_scalar("twse/2330", step * 2.0, step)
            w.add_scalar("aaple/v", float(step), step)
            w.add_scalar("aaple/lo", step - 0.5, step)
            w.add_scalar("aaple/hi", step + 0.5, step)
    client = make_client(tmp_path)
    cats = client.get(f"{BASE}/layout").json["categories"]
    assert [(c["title"], [(ch["title"], ch["kind"]) for ch in c["charts"]]) for c in cats] == [
        ("Taiwan", [("twse", "multiline")]),
        ("USA", [("aaple", "margin")]),
    ]
    lines = client.post(f"{BASE}/scalars", json={"tags": ["twse/0050", "twse/2330"]}).json["series"]
    assert sorted(lines["torch"]) == ["twse/0050", "twse/2330"]
    assert lines["torch"]["twse/2330"]["value"] == [s * 2.0 for s in range(10)]
    margin = client.get(f"{BASE}/margin?value=aaple/v&lower=aaple/lo&upper=aaple/hi").json["torch"]
    assert margin["band"]["lower"] == [s - 0.5 for s in range(10)]
    assert margin["band"]["upper"] == [s + 0.5 for s in range(10)]


def test_margin_value_and_band_keep_to_the_step_range(cs_client: Any) -> None:
    query = "value=v&lower=v_lo&upper=v_hi&min_step=20&max_step=30"
    alpha = cs_client.get(f"{BASE}/margin?{query}").json["alpha"]
    assert alpha["step"] == list(range(20, 31)) and alpha["in_range"] == 11
    band = alpha["band"]
    assert band["step"] == [20, 22, 24, 26, 28, 30] and band["total"] == 25 and band["in_range"] == 6
    assert band["upper"] == [s + 1.0 for s in band["step"]]


@pytest.mark.parametrize("limit", [1, 6, 30])
def test_samples_per_plugin_scalars_limits_lines_and_bands(
    layout_logdir: Path, make_client: Any, limit: int
) -> None:
    client = make_client(layout_logdir, samples_per_plugin={"scalars": limit})
    lines = client.post(f"{BASE}/scalars", json={"tags": ["loss"], "runs": ["alpha"]}).json["series"]
    assert 0 < lines["alpha"]["loss"]["shown"] <= limit and lines["alpha"]["loss"]["step"][-1] == 99
    answer = client.get(f"{BASE}/margin?value=v&lower=v_lo&upper=v_hi&points=1000").json["alpha"]
    assert 0 < answer["shown"] <= limit and answer["step"][-1] == 99
    band = answer["band"]
    assert 0 < band["shown"] == len(band["lower"]) <= limit and band["step"][-1] == 48  # both edges' last
    every = make_client(layout_logdir, samples_per_plugin={"scalars": None})
    assert every.get(f"{BASE}/margin?value=v&lower=v_lo&upper=v_hi").json["alpha"]["shown"] == 100
