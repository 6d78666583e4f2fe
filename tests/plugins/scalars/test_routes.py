"""The scalar routes: smoothing, downsampling, step ranges, downloads, parameter errors."""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.plugins.scalars.query import minmax_indices, safe_path, smooth, thin_indices
from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app
from tests.provider._plain import Plain
from tests.server._logdirs import INF_STEP, LONG, NAN_STEP, SPIKE_STEP, XSS_RUN, XSS_TAG, long_series


def reference_smoothing(values: list[float], weight: float) -> list[float]:
    """TensorBoard's definition, written out plainly."""
    constant = all(v == values[0] for v in values)
    last, n, out = 0.0, 0, []
    for y in values:
        if constant or not math.isfinite(y):
            out.append(y)
            continue
        last = last * weight + (1 - weight) * y
        n += 1
        out.append(last / (1 - weight**n))
    return out


@pytest.mark.parametrize("weight", [0.0, 0.3, 0.6, 0.9, 0.99, 0.999])
def test_smoothing_equals_the_reference(weight: float) -> None:
    values = long_series()
    expected = np.array(reference_smoothing(values.tolist(), weight))
    got = smooth(values, weight)
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-9, atol=1e-12)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    assert np.array_equal(np.isposinf(got), np.isposinf(expected))


def test_smoothing_leaves_constant_series_unchanged() -> None:
    values = np.full(50, 0.1)
    assert smooth(values, 0.6).tolist() == values.tolist()


def test_route_smoothing_is_computed_on_full_resolution(client: Any, tbkit_logdir: Path) -> None:
    url = "/data/plugin/scalars/scalars?tag=loss&runs=train&points=200&smoothing=0.9"
    answer = client.get(url).json["train"]
    frame = tbkit.read(str(tbkit_logdir)).scalars()
    stored = frame[(frame.run == "train") & (frame.tag == "loss")].value.tolist()  # float32 on disk
    full = reference_smoothing(stored, 0.9)
    assert len(answer["step"]) < len(full)
    for step, value in zip(answer["step"], answer["smoothed"], strict=True):
        if value is None:
            assert not math.isfinite(full[step])
        else:
            assert value == pytest.approx(full[step], rel=1e-9, abs=1e-12)


def test_downsampling_keeps_spikes_first_last_and_says_how_many(client: Any) -> None:
    answer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=train&points=100").json["train"]
    assert answer["total"] == LONG and answer["in_range"] == LONG
    assert answer["shown"] == len(answer["step"]) <= 100
    assert answer["step"][0] == 0 and answer["step"][-1] == LONG - 1
    assert answer["step"] == sorted(answer["step"])
    for special in (SPIKE_STEP, NAN_STEP, INF_STEP):
        assert special in answer["step"]
    assert answer["value"][answer["step"].index(SPIKE_STEP)] == 100.0
    nonfinite = answer["nonfinite"]
    assert nonfinite[str(answer["step"].index(NAN_STEP))] == "nan"
    assert nonfinite[str(answer["step"].index(INF_STEP))] == "inf"
    assert answer["value"][answer["step"].index(NAN_STEP)] is None


def test_minmax_indices_properties() -> None:
    rng = np.random.default_rng(0)
    for n, limit in [(10, 100), (1000, 7), (1001, 10), (100000, 1000), (5, 4), (50, 2), (50, 1), (50, 0)]:
        values = rng.normal(size=n)
        keep = minmax_indices(values, limit)
        assert len(keep) <= max(limit, 0) or n <= limit
        assert np.all(np.diff(keep) > 0)
        if n <= limit:
            assert keep.tolist() == list(range(n))
        elif limit >= 2:
            assert keep[0] == 0 and keep[-1] == n - 1
        if limit >= 4 and n > limit:
            assert int(np.argmax(values)) in keep and int(np.argmin(values)) in keep


def test_all_points_when_under_the_limit(client: Any, tbkit_logdir: Path) -> None:
    answer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=eval").json["eval"]
    frame = tbkit.read(str(tbkit_logdir)).scalars()
    expected = frame[(frame.run == "eval") & (frame.tag == "loss")]
    assert answer["step"] == expected.step.tolist()
    assert answer["value"] == expected.value.tolist()
    assert answer["wall_time"] == expected.wall_time.tolist()
    assert answer["total"] == answer["shown"] == 100
    assert "nonfinite" not in answer


def test_step_range_zoom_gets_full_resolution(client: Any) -> None:
    answer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=train&min_step=1200&max_step=1300").json[
        "train"
    ]
    assert answer["step"] == list(range(1200, 1301))
    assert answer["in_range"] == answer["shown"] == 101 and answer["total"] == LONG


def test_several_runs_and_post(client: Any) -> None:
    both = client.get("/data/plugin/scalars/scalars?tag=loss&runs=train,eval&points=50").json
    assert set(both) == {"train", "eval"}
    posted = client.post(
        "/data/plugin/scalars/scalars", json={"tag": "loss", "runs": ["train", "eval"], "points": 50}
    )
    assert posted.json == both
    every = client.get("/data/plugin/scalars/scalars?tag=loss&points=50").json
    assert every == both


def test_html_names_round_trip(client: Any) -> None:
    response = client.post("/data/plugin/scalars/scalars", json={"tag": XSS_TAG, "runs": [XSS_RUN]})
    assert response.status_code == 200
    assert b"<" not in response.data
    assert response.json[XSS_RUN]["value"] == [1.0]


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("tag=loss&runs=nope", 404),
        ("tag=no_such_tag", 404),
        ("runs=train", 400),
        ("tag=loss&points=abc", 400),
        ("tag=loss&points=0", 400),
        ("tag=loss&points=10001", 400),
        ("tag=loss&smoothing=1", 400),
        ("tag=loss&smoothing=-0.1", 400),
        ("tag=loss&smoothing=nan", 400),
        ("tag=loss&min_step=x", 400),
        ("tag=loss&min_step=10&max_step=5", 400),
    ],
)
def test_parameter_errors(client: Any, query: str, status: int) -> None:
    response = client.get(f"/data/plugin/scalars/scalars?{query}")
    assert response.status_code == status, response.json
    assert isinstance(response.json["error"], str)


def test_post_body_must_be_a_json_object(client: Any) -> None:
    bad = client.post("/data/plugin/scalars/scalars", data="[1, 2]", content_type="application/json")
    assert bad.status_code == 400
    broken = client.post("/data/plugin/scalars/scalars", data="{nope", content_type="application/json")
    assert broken.status_code == 400


def test_tags_route(client: Any) -> None:
    tags = client.get("/data/plugin/scalars/tags").json
    assert tags["train"]["loss"]["max_step"] == LONG - 1
    assert tags["train"]["loss"]["last_value"] == pytest.approx(long_series()[-1])
    assert tags["train"]["constant"]["last_value"] == 0.5
    assert tags[XSS_RUN][XSS_TAG]["max_step"] == 0


def test_csv_download_equals_the_reader(client: Any, tbkit_logdir: Path) -> None:
    response = client.get("/data/plugin/scalars/download?run=train&tag=loss&format=csv")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    frame = tbkit.read(str(tbkit_logdir)).scalars()
    expected = frame[(frame.run == "train") & (frame.tag == "loss")]
    assert [int(r["step"]) for r in rows] == expected.step.tolist()
    assert [float(r["wall_time"]) for r in rows] == expected.wall_time.tolist()
    got = np.array([float(r["value"]) for r in rows])
    np.testing.assert_array_equal(got, expected.value.to_numpy())  # NaN equal to NaN


def test_json_download(client: Any) -> None:
    response = client.get("/data/plugin/scalars/download?run=eval&tag=loss&format=json")
    rows = json.loads(response.data)
    assert rows[0] == {"step": 0, "wall_time": 1500.0, "value": 1.0}
    assert len(rows) == 100
    assert "attachment" in response.headers["Content-Disposition"]
    nan_rows = json.loads(client.get("/data/plugin/scalars/download?run=train&tag=loss&format=json").data)
    assert nan_rows[NAN_STEP]["value"] is None


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("run=train&tag=loss&format=xml", 400),
        ("run=nope&tag=loss", 404),
        ("run=eval&tag=constant", 404),
        ("tag=loss", 400),
    ],
)
def test_download_errors(client: Any, query: str, status: int) -> None:
    assert client.get(f"/data/plugin/scalars/download?{query}").status_code == status


def test_download_all_zip(client: Any) -> None:
    response = client.get("/data/plugin/scalars/download_all?runs=^(train|eval)$&tags=loss")
    assert response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    assert sorted(archive.namelist()) == ["eval/loss.csv", "train/loss.csv"]
    single = client.get("/data/plugin/scalars/download?run=eval&tag=loss&format=csv").get_data(as_text=True)
    assert archive.read("eval/loss.csv").decode() == single
    everything = zipfile.ZipFile(io.BytesIO(client.get("/data/plugin/scalars/download_all").data)).namelist()
    assert len(everything) == 4
    for name in everything:
        assert not name.startswith("/") and ".." not in name.split("/") and "<" not in name
    assert client.get("/data/plugin/scalars/download_all?runs=(").status_code == 400


def test_safe_path() -> None:
    assert safe_path(".", "a/b") == "_/a/b"
    assert safe_path("../x", "<t>") == "_/x/_t_"
    assert safe_path("run", "") == "run/_"


def _limited(logdir: Path, limit: int | None) -> Any:
    return create_app(tbkit.read(str(logdir)).provider, samples_per_plugin={"scalars": limit}).test_client()


@pytest.mark.parametrize("limit", [1, 2, 3, 20, 999])
def test_samples_per_plugin_scalars_is_the_points_a_chart_gets(tbkit_logdir: Path, limit: int) -> None:
    client = _limited(tbkit_logdir, limit)
    url = "/data/plugin/scalars/scalars?tag=loss&runs=train,eval"
    # as the chart asks (no points: the server's choice), by GET and POST, and as an older chart did
    asked = [
        client.get(url).json,
        client.post("/data/plugin/scalars/scalars", json={"tag": "loss", "runs": ["train", "eval"]}).json,
        client.get(f"{url}&points=1000").json,
    ]
    for answer in asked:
        train, evaluation = answer["train"], answer["eval"]
        assert 0 < train["shown"] == len(train["step"]) <= limit and train["total"] == LONG
        assert 0 < evaluation["shown"] <= limit
        assert train["step"][-1] == LONG - 1  # the latest point is always kept
    zoomed = client.get(f"{url}&min_step=10&max_step=4000").json["train"]
    assert zoomed["shown"] <= limit and zoomed["step"][-1] == 4000
    fewer = client.get("/data/plugin/scalars/scalars?tag=loss&runs=train&points=1").json["train"]
    assert fewer["step"] == [LONG - 1]  # a smaller request is honoured


def test_samples_per_plugin_scalars_all_sends_every_point(tbkit_logdir: Path) -> None:
    client = _limited(tbkit_logdir, None)
    url = "/data/plugin/scalars/scalars?tag=loss&runs=train"
    answer = client.get(url).json["train"]
    assert answer["shown"] == answer["total"] == LONG
    assert answer["step"] == list(range(LONG))
    assert client.get(f"{url}&points=50").json["train"]["shown"] <= 50
    large = client.get(f"{url}&points=20000")
    assert large.status_code == 200 and large.json["train"]["shown"] == LONG


def test_thin_indices_keeps_the_last() -> None:
    keep = np.arange(0, 100, 3)
    assert thin_indices(keep, None).tolist() == keep.tolist()
    assert thin_indices(keep, 50).tolist() == keep.tolist()
    assert thin_indices(keep, 1).tolist() == [99]
    for limit in range(2, 34):
        got = thin_indices(keep, limit)
        assert len(got) == limit and got[0] == 0 and got[-1] == 99 and np.all(np.diff(got) > 0)


def test_same_answers_over_a_plain_data_provider() -> None:
    points = [(i * 3, 100.0 + i, float(i % 7) if i != 9 else math.nan) for i in range(3000)]
    data = {"a": {"t": {"points": points}, "u": {"points": points[:5]}}, "b": {"t": {"points": points[:10]}}}
    fast = create_app(InMemoryProvider(data)).test_client()
    plain = create_app(Plain(InMemoryProvider(data))).test_client()
    for url in [
        "/data/plugin/scalars/scalars?tag=t&points=50&smoothing=0.5",
        "/data/plugin/scalars/scalars?tag=t&runs=a&min_step=30&max_step=90",
        "/data/plugin/scalars/download?run=a&tag=t",
        "/data/plugin/scalars/download_all?tags=t",
        "/data/plugin/scalars/tags",
    ]:
        a, b = fast.get(url), plain.get(url)
        assert a.status_code == b.status_code == 200, url
        assert a.data == b.data, url


def test_a_tag_only_other_runs_have_is_an_empty_answer_an_unknown_one_a_404(client: Any) -> None:
    """The 404 asks every run for the tag: ``constant`` is train's alone, ``nope`` nobody's."""
    known = client.get("/data/plugin/scalars/scalars?tag=constant&runs=eval")
    assert known.status_code == 200 and known.json == {}
    assert client.get("/data/plugin/scalars/scalars?tag=nope&runs=eval").status_code == 404
    assert "train" in client.get("/data/plugin/scalars/scalars?tag=constant").json
