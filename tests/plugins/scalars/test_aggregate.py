"""Run groups (``tbkit.aggregate`` / ``Logdir.aggregate``) against statistics computed plainly with pandas."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit.errors import InvalidArgumentError
from tbkit.plugins.scalars.aggregate import group_runs

SEEDS = 3
TAGS = ("train/loss", "eval/acc")


def _values(group: str, seed: int, tag: str) -> dict[int, float]:
    """Steps 0..29; seed 2 of each group skips every third step and stops at 24 (unaligned steps)."""
    rng = np.random.default_rng(ord(group) * 100 + seed * 10 + TAGS.index(tag))
    base = 1.0 if group == "a" else 3.0
    steps = [s for s in range(30) if seed != 2 or (s % 3 and s <= 24)]
    return {s: float(base + 0.1 * s * (tag == "eval/acc") + rng.normal(0, 0.5)) for s in steps}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("groups")
    for group in ("a", "b"):
        for seed in range(SEEDS):
            run = f"{group}_seed{seed}"
            with tbkit.SummaryWriter(str(root / run)) as w:
                for tag in TAGS:
                    for step, value in _values(group, seed, tag).items():
                        w.add_scalar(tag, value, step)
                w.add_hparams({"lr": 0.1 if group == "a" else 0.01, "opt": "sgd"}, {"final": 1.0})
    with tbkit.SummaryWriter(str(root / "solo")) as w:  # matches no group regex
        w.add_scalar("train/loss", 9.0, 0)
    return root


def _pandas_reference(df: pd.DataFrame, groups: dict[str, str], stat: str) -> pd.DataFrame:
    """The group statistics written the obvious way: pivot runs to columns, reduce across them."""
    df = df.assign(group=df["run"].astype(str).map(groups)).dropna(subset=["group"])
    rows = []
    for (group, tag), part in df.groupby(["group", df["tag"].astype(str)]):
        wide = part.pivot_table(index="step", columns="run", values="value", aggfunc="last", observed=True)
        center = wide.mean(axis=1) if stat == "mean" else wide.median(axis=1)
        for step in wide.index:
            rows.append(
                {
                    "group": group,
                    "tag": tag,
                    "step": int(step),
                    "value": center[step],
                    "std": wide.loc[step].std(),
                    "min": wide.loc[step].min(),
                    "max": wide.loc[step].max(),
                    "count": int(wide.loc[step].count()),
                }
            )
    return pd.DataFrame(rows).sort_values(["group", "tag", "step"]).reset_index(drop=True)


@pytest.mark.parametrize("stat", ["mean", "median"])
def test_std_band_equals_pandas_mean_plus_minus_std(logdir: Path, stat: str) -> None:
    ld = tbkit.read(str(logdir))
    got = ld.aggregate(r"(.*)_seed\d+", stat=stat, band="std")
    groups = {r: r.split("_seed")[0] if "_seed" in r else r for r in ld.runs()["run"].astype(str)}
    want = _pandas_reference(ld.scalars(), groups, stat)
    assert list(got.columns) == ["group", "tag", "step", "wall_time", "value", "lower", "upper", "count"]
    assert (
        got[["group", "step"]].astype(str).values.tolist()
        == want[["group", "step"]].astype(str).values.tolist()
    )
    assert got["tag"].astype(str).tolist() == want["tag"].tolist()
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)
    assert got["count"].tolist() == want["count"].tolist()
    std = want["std"].fillna(0.0)  # one member: a zero-width band
    np.testing.assert_allclose(got["lower"], want["value"] - std, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["upper"], want["value"] + std, rtol=1e-12, atol=1e-12)
    assert set(got["group"]) == {"a", "b", "solo"}
    # the unaligned steps: seed 2 lacks step 3, so only two members count there
    a3 = got[(got.group == "a") & (got.tag == "train/loss") & (got.step == 3)]
    assert a3["count"].tolist() == [2]
    assert got[(got.group == "a") & (got.step == 29)]["count"].tolist() == [2, 2]


def test_minmax_band_and_pipe(logdir: Path) -> None:
    df = tbkit.read(str(logdir)).scalars()
    got = df.pipe(tbkit.aggregate, by=r"^(a|b)_", band="minmax", keep_ungrouped=False)
    groups = {r: r[0] for r in df["run"].astype(str).unique() if r[:2] in ("a_", "b_")}
    want = _pandas_reference(df, groups, "mean")
    assert set(got["group"]) == {"a", "b"}
    np.testing.assert_allclose(got["lower"], want["min"], rtol=0)
    np.testing.assert_allclose(got["upper"], want["max"], rtol=0)
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12)


def test_wall_time_is_the_members_mean(logdir: Path) -> None:
    df = tbkit.read(str(logdir)).scalars()
    got = tbkit.aggregate(df, r"(.*)_seed\d+")
    part = df[(df.run.astype(str).str.startswith("b_")) & (df.tag == "eval/acc") & (df.step == 5)]
    row = got[(got.group == "b") & (got.tag == "eval/acc") & (got.step == 5)]
    assert row["wall_time"].tolist() == pytest.approx([part["wall_time"].mean()])


def test_group_by_hparam(logdir: Path) -> None:
    ld = tbkit.read(str(logdir))
    got = ld.aggregate("hparam:lr")
    assert set(got["group"]) == {"lr=0.1", "lr=0.01", "solo"}
    by_regex = ld.aggregate(r"(.*)_seed\d+")
    a = by_regex[by_regex.group == "a"].reset_index(drop=True)
    lr = got[got.group == "lr=0.1"].reset_index(drop=True)
    np.testing.assert_array_equal(a["value"], lr["value"])
    assert group_runs(["a_seed0", "x"], "hparam:opt", hparams={"a_seed0": {"opt": "sgd"}}) == {
        "a_seed0": "opt=sgd",
        "x": "x",
    }
    with pytest.raises(InvalidArgumentError, match="no hyperparameter 'nope'"):
        ld.aggregate("hparam:nope")


def test_group_by_mapping_and_function() -> None:
    df = pd.DataFrame(
        {
            "run": ["r1", "r2", "r3", "r1"],
            "tag": ["t"] * 4,
            "step": [0, 0, 0, 1],
            "wall_time": [1.0, 2.0, 3.0, 4.0],
            "value": [1.0, 2.0, 10.0, 5.0],
        }
    )
    got = tbkit.aggregate(df, {"r1": "g", "r2": "g"}, keep_ungrouped=False)
    assert got[["group", "step", "value", "count"]].values.tolist() == [["g", 0, 1.5, 2], ["g", 1, 5.0, 1]]
    assert got["lower"].tolist()[1] == got["upper"].tolist()[1] == 5.0
    by_fn = tbkit.aggregate(df, lambda run: "all", stat="median", band="minmax")
    assert by_fn[["step", "value", "lower", "upper", "count"]].values.tolist() == [
        [0, 2.0, 1.0, 10.0, 3],
        [1, 5.0, 5.0, 5.0, 1],
    ]


def test_nonfinite_values_and_duplicates_are_left_out() -> None:
    df = pd.DataFrame(
        {
            "run": ["x1", "x2", "x3", "x1", "x2"],
            "tag": ["t"] * 5,
            "step": [0, 0, 0, 1, 1],
            "value": [1.0, math.nan, math.inf, 2.0, 4.0],
        }
    )
    df = pd.concat([df, pd.DataFrame({"run": ["x1"], "tag": ["t"], "step": [1], "value": [6.0]})])
    got = tbkit.aggregate(df, r"x")
    assert got[["step", "value", "count"]].values.tolist() == [[0, 1.0, 1], [1, 5.0, 2]]  # x1@1 rewritten: 6
    assert math.isnan(got["wall_time"][0])
    only_nan = tbkit.aggregate(df.iloc[[1]], r"x")
    assert only_nan["count"].tolist() == [0] and math.isnan(only_nan["value"][0])


def test_regex_without_capture_and_empty_frame() -> None:
    assert group_runs(["abc/1", "abd/2"], r"ab.") == {"abc/1": "abc", "abd/2": "abd"}
    empty = pd.DataFrame({"run": [], "tag": [], "step": [], "wall_time": [], "value": []})
    got = tbkit.aggregate(empty, r"(.*)")
    assert len(got) == 0 and list(got.columns)[-1] == "count"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"by": "("}, "not valid"),
        ({"by": "x", "stat": "mode"}, "stat must be"),
        ({"by": "x", "band": "iqr"}, "band must be"),
        ({"by": "hparam:lr"}, "needs the runs' hyperparameters"),
        ({"by": "hparam:"}, "needs a name"),
        ({"by": 3}, "by must be"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    df = pd.DataFrame({"run": ["x"], "tag": ["t"], "step": [0], "value": [1.0]})
    with pytest.raises(InvalidArgumentError, match=message):
        tbkit.aggregate(df, **kwargs)
