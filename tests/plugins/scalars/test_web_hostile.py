"""The scalar routes on odd data and hostile patterns: data or a 4xx, never a 500, never a stall."""

from __future__ import annotations

import http.client
import io
import json
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

import pytest

import tbkit
from tbkit import SummaryWriter
from tbkit.plugins.scalars.query import MAX_PATH
from tbkit.server.app import create_app
from tbkit.server.serve import start

BASE = "/data/plugin/scalars"
STEP_MIN, STEP_MAX = -(2**63), 2**63 - 1
LONG_TAG = "t" * 70_000
DEEP_TAG = "a/" * 35_000 + "z"
EVIL_RUN = "a" * 40 + "!"  # (a+)+$ takes about 2**40 steps in Python's re on this name


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile_scalars")
    with SummaryWriter(str(root / "odd")) as w:
        w.add_scalar("loss", 1.0, STEP_MIN, walltime=float("nan"))
        w.add_scalar("loss", 2.0, 0, walltime=float("inf"))
        w.add_scalar("loss", float("nan"), STEP_MAX, walltime=float("-inf"))
    with SummaryWriter(str(root / "long")) as w:
        w.add_scalar(LONG_TAG, 1.0, 0)
        w.add_scalar(LONG_TAG + "x", 2.0, 0)
        w.add_scalar(DEEP_TAG, 3.0, 0)
    for run in (EVIL_RUN, "lr_seed1", "lr_seed2"):
        with SummaryWriter(str(root / run)) as w:
            w.add_scalar("loss", 0.5, 1)
    return root


@pytest.fixture(scope="module")
def client(logdir: Path) -> Any:
    return create_app(tbkit.read(str(logdir)).provider).test_client()


def test_json_download_of_nan_wall_times_and_extreme_steps(client: Any) -> None:
    # Before: 500, "Out of range float values are not JSON compliant" (json.dumps(allow_nan=False)).
    response = client.get(f"{BASE}/download?run=odd&tag=loss&format=json")
    assert response.status_code == 200
    rows = json.loads(response.data)
    assert rows == [
        {"step": STEP_MIN, "wall_time": None, "value": 1.0},
        {"step": 0, "wall_time": None, "value": 2.0},
        {"step": STEP_MAX, "wall_time": None, "value": None},
    ]
    csv = client.get(f"{BASE}/download?run=odd&tag=loss&format=csv").get_data(as_text=True)
    assert csv.splitlines()[1:] == [f"{STEP_MIN},nan,1.0", "0,inf,2.0", f"{STEP_MAX},-inf,nan"]


def test_download_all_with_a_70000_character_tag(client: Any) -> None:
    # Before: 500, struct.error (a zip member name holds at most 65,535 bytes).
    response = client.get(f"{BASE}/download_all?runs=^long$")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    names = archive.namelist()
    assert len(names) == 3 and len(set(names)) == 3  # the two long tags stay distinct
    assert all(len(name) <= MAX_PATH + len(".csv") and name.startswith("long/") for name in names)
    values = sorted(archive.read(name).decode().splitlines()[1].rsplit(",", 1)[1] for name in names)
    assert values == ["1.0", "2.0", "3.0"]
    long = client.get(f"{BASE}/download", query_string={"run": "long", "tag": LONG_TAG})
    assert long.status_code == 200 and len(long.headers["Content-Disposition"]) < 2 * MAX_PATH


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)", r"(?<!x)a"])
@pytest.mark.parametrize("param", ["runs", "tags"])
def test_download_all_refuses_patterns_re2_cannot_match(client: Any, param: str, pattern: str) -> None:
    # Before: Python's re accepted them (200); backreferences and lookaround are what backtracks.
    response = client.get(f"{BASE}/download_all", query_string={param: pattern})
    assert response.status_code == 400
    assert "linear time" in response.json["error"] and repr(param) in response.json["error"]


def test_group_by_is_matched_by_re2_with_the_same_groups(client: Any) -> None:
    answer = client.get(f"{BASE}/groups", query_string={"tag": "loss", "group_by": r"(lr)_seed\d"}).json
    assert answer["lr"]["members"] == ["lr_seed1", "lr_seed2"]
    assert answer[EVIL_RUN]["members"] == [EVIL_RUN]  # ungrouped runs keep their own group
    refused = client.get(f"{BASE}/groups", query_string={"tag": "loss", "group_by": r"(lr)_seed\1"})
    assert refused.status_code == 400 and "'group_by'" in refused.json["error"]
    download = client.get(
        f"{BASE}/groups_download", query_string={"tag": "loss", "group_by": r"(?=l)", "format": "json"}
    )
    assert download.status_code == 400


@pytest.mark.slow
def test_catastrophic_patterns_do_not_stall_the_server(logdir: Path) -> None:
    # Before: each request held a worker thread for hours, and with enough of them in flight
    # nothing else answered; the socket timeout below is generous, not a speed bound.
    handle = start(tbkit.read(str(logdir)).provider, host="127.0.0.1", port=0, threads=2)
    conns = []
    try:
        urls = [
            f"{BASE}/download_all?" + urllib.parse.urlencode({"runs": r"(a+)+$"}),
            f"{BASE}/groups?" + urllib.parse.urlencode({"tag": "loss", "group_by": r"^(a+)+$"}),
            f"{BASE}/download_all?" + urllib.parse.urlencode({"runs": r"^(a|aa)+$", "tags": "(.*)*x"}),
        ]
        for url in urls:
            conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=60)
            conn.request("GET", url)
            conns.append(conn)
        runs = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=60)
        conns.append(runs)
        runs.request("GET", "/data/runs")
        assert EVIL_RUN in [r["name"] for r in json.loads(runs.getresponse().read())]
        answers = [conn.getresponse() for conn in conns[:-1]]
        assert [a.status for a in answers] == [200, 200, 200]
        empty = zipfile.ZipFile(io.BytesIO(answers[0].read()))
        assert empty.namelist() == []  # (a+)+$ matches no run name: each ends in a letter other than a
        groups = json.loads(answers[1].read())
        assert groups[EVIL_RUN]["members"] == [EVIL_RUN]
    finally:
        for conn in conns:
            conn.close()
        handle.close()
