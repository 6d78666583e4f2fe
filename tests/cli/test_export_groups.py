"""``tbkit export --group-by``: the groups file equals pandas' mean ± std over the members."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tests.cli._logdirs import run_tbkit


@pytest.fixture(scope="module")
def seeds_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seeds")
    rng = np.random.default_rng(7)
    for group, level in (("a", 1.0), ("b", 4.0)):
        for seed in range(3):
            with tbkit.SummaryWriter(str(root / f"{group}_seed{seed}")) as w:
                for step in range(0, 40, 1 + seed):  # unaligned steps
                    w.add_scalar("loss", level + float(rng.normal()), step)
                w.add_hparams({"arch": group}, {"m": 0.0})
    return root


def _reference(logdir: Path, stat: str) -> pd.DataFrame:
    df = tbkit.read(str(logdir), tags="loss").scalars()
    df = df.assign(group=df["run"].astype(str).str.split("_seed").str[0])
    grouped = df.groupby(["group", "step"])["value"]
    out = pd.DataFrame(
        {"value": grouped.mean() if stat == "mean" else grouped.median(), "std": grouped.std().fillna(0.0)}
    )
    out["min"], out["max"], out["count"] = grouped.min(), grouped.max(), grouped.count()
    return out.reset_index()


def test_group_by_regex_csv_equals_pandas(seeds_logdir: Path, tmp_path: Path) -> None:
    result = run_tbkit(
        "export", "--logdir", str(seeds_logdir), "-o", str(tmp_path), "--format", "csv",
        "--tags", "^loss$", "--group-by", r"(.*)_seed\d+",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "scalar_groups" in result.stdout
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["kinds"]) == ["scalar_groups"]  # --group-by alone: only the groups
    entry = manifest["kinds"]["scalar_groups"]
    assert entry["groups"] == ["a", "b"] and entry["stat"] == "mean" and entry["band"] == "std"
    got = pd.read_csv(tmp_path / "scalar_groups.csv")
    assert list(got.columns) == ["group", "tag", "step", "wall_time", "value", "lower", "upper", "count"]
    want = _reference(seeds_logdir, "mean")
    assert got[["group", "step"]].values.tolist() == want[["group", "step"]].values.tolist()
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)
    np.testing.assert_allclose(got["lower"], want["value"] - want["std"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["upper"], want["value"] + want["std"], rtol=1e-12, atol=1e-12)
    assert got["count"].tolist() == want["count"].tolist()
    assert set(got["count"]) == {1, 2, 3}


def test_group_by_hparam_median_minmax_with_kinds(seeds_logdir: Path, tmp_path: Path) -> None:
    result = run_tbkit(
        "export", "--logdir", str(seeds_logdir), "-o", str(tmp_path), "--format", "json",
        "--kinds", "scalars", "--group-by", "hparam:arch", "--stat", "median", "--band", "minmax",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["kinds"]) == {"scalars", "scalar_groups"}
    got = pd.read_json(tmp_path / "scalar_groups.jsonl", lines=True, precise_float=True)
    got = got[got.tag == "loss"].reset_index(drop=True)
    want = _reference(seeds_logdir, "median")
    assert got["group"].tolist() == ["arch=" + g for g in want["group"]]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)
    np.testing.assert_allclose(got["lower"], want["min"], rtol=0)
    np.testing.assert_allclose(got["upper"], want["max"], rtol=0)


def test_bad_group_regex_fails_with_one_line(seeds_logdir: Path, tmp_path: Path) -> None:
    result = run_tbkit("export", "--logdir", str(seeds_logdir), "-o", str(tmp_path), "--group-by", "(")
    assert result.returncode == 1
    assert "group regex" in result.stderr and "Traceback" not in result.stderr
    usage = run_tbkit("export", "--logdir", str(seeds_logdir), "-o", str(tmp_path), "--stat", "mode")
    assert usage.returncode == 2
