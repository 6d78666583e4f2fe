"""``tbkit export``: every format gives back tbkit.read's frames; selection, media, problems, exit codes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbkit
from tests.cli._logdirs import XSS_RUN, run_tbkit

pytestmark = pytest.mark.filterwarnings("ignore:tbkit. corrupt record:RuntimeWarning")


def _export(logdir: Path, out: Path, *args: str) -> dict:
    result = run_tbkit("export", "--logdir", str(logdir), "-o", str(out), *args)
    assert result.returncode == 0, result.stderr
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def _load(out: Path, kind: str, fmt: str) -> pd.DataFrame:
    if fmt == "parquet":
        return pd.read_parquet(out / f"{kind}.parquet")
    if fmt == "csv":
        return pd.read_csv(out / f"{kind}.csv", keep_default_na=False, na_values=[""])
    return pd.read_json(out / f"{kind}.jsonl", lines=True, dtype=False, precise_float=True)


def _same_floats(a: object, b: object) -> bool:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.all((x == y) | (np.isnan(x) & np.isnan(y))))


def test_help() -> None:
    result = run_tbkit("export", "--help")
    assert result.returncode == 0
    for flag in ("--logdir", "-o", "--format", "--runs", "--tags", "--kinds", "--purge_orphaned_data"):
        assert flag in result.stdout


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_scalars_round_trip_exactly(rich_logdir: Path, tmp_path: Path, fmt: str) -> None:
    manifest = _export(rich_logdir, tmp_path, "--format", fmt)
    expected = tbkit.read(str(rich_logdir)).scalars()
    got = _load(tmp_path, "scalars", fmt)
    assert manifest["kinds"]["scalars"]["rows"] == len(expected) == len(got)
    assert list(got["run"].astype(str)) == list(expected["run"].astype(str))
    assert list(got["tag"].astype(str)) == list(expected["tag"].astype(str))
    assert (got["step"].to_numpy() == expected["step"].to_numpy()).all()
    values = got["value"].to_numpy(dtype=np.float64)
    want = expected["value"].to_numpy()
    if fmt == "json":  # JSON has no NaN or infinity: they are null
        finite = np.isfinite(want)
        assert _same_floats(values[finite], want[finite]) and np.isnan(values[~finite]).all()
        assert _same_floats(got["wall_time"], expected["wall_time"])
    else:
        assert _same_floats(values, want)
        assert _same_floats(got["wall_time"], expected["wall_time"])
    assert set(manifest["kinds"]) >= {
        "scalars",
        "histograms",
        "images",
        "audio",
        "text",
        "pr_curves",
        "hparams",
    }


def test_parquet_keeps_binary_and_arrays(rich_logdir: Path, tmp_path: Path) -> None:
    _export(rich_logdir, tmp_path)
    ld = tbkit.read(str(rich_logdir))
    images = _load(tmp_path, "images", "parquet")
    assert [bytes(b) for b in images["data"]] == [bytes(b) for b in ld.images()["data"]]
    hist = _load(tmp_path, "histograms", "parquet")
    for got, want in zip(hist["counts"], ld.histograms()["counts"], strict=True):
        assert _same_floats(got, want)
    pr = _load(tmp_path, "pr_curves", "parquet")
    assert _same_floats(
        np.stack(pr["precision"].to_numpy()), np.stack(ld.pr_curves()["precision"].to_numpy())
    )
    tensors = _load(tmp_path, "tensors", "parquet")
    assert [np.stack(v).tolist() for v in tensors["value"]] == [v.tolist() for v in ld.tensors()["value"]]
    hp = _load(tmp_path, "hparams", "parquet").set_index("run")
    assert hp.loc["train", "lr"] == pytest.approx(0.1) and hp.loc["train", "opt"] == "adam"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_text_formats_write_media_files(rich_logdir: Path, tmp_path: Path, fmt: str) -> None:
    manifest = _export(rich_logdir, tmp_path, "--format", fmt, "--kinds", "images,audio,text,histograms")
    assert set(manifest["kinds"]) == {"images", "audio", "text", "histograms"}
    ld = tbkit.read(str(rich_logdir))
    for kind in ("images", "audio"):
        got = _load(tmp_path, kind, fmt)
        assert "data" not in got.columns
        files = [tmp_path / p for p in got["data_file"]]
        assert all(path.resolve().is_relative_to(tmp_path.resolve()) for path in files)
        assert [f.read_bytes() for f in files] == [bytes(b) for b in getattr(ld, kind)()["data"]]
        assert manifest["kinds"][kind]["media_files"] == len(files) == len(set(files))
    assert {p.suffix for p in (tmp_path / "images").rglob("*.*")} == {".png"}
    assert {p.suffix for p in (tmp_path / "audio").rglob("*.*")} == {".wav"}
    text = _load(tmp_path, "text", fmt)
    assert list(text["text"]) == list(ld.text()["text"])
    hist = _load(tmp_path, "histograms", fmt)
    edges = [json.loads(e) if isinstance(e, str) else e for e in hist["edges"]]
    for got, want in zip(edges, ld.histograms()["edges"], strict=True):
        assert _same_floats(got, want)


def test_selection_by_runs_tags_and_kinds(rich_logdir: Path, tmp_path: Path) -> None:
    manifest = _export(rich_logdir, tmp_path, "--runs", "^train$", "--tags", "acc|odd", "--kinds", "scalars")
    assert list(manifest["kinds"]) == ["scalars"]
    got = _load(tmp_path, "scalars", "parquet")
    assert set(got["run"]) == {"train"}
    assert set(got["tag"]) == {"metrics/acc", "odd"}  # anywhere in the name
    assert not (tmp_path / "images.parquet").exists()
    other = _export(rich_logdir, tmp_path / "x", "--runs", "img", "--kinds", "scalars,text")
    assert set(_load(tmp_path / "x", "text", "parquet")["run"]) == {XSS_RUN}
    assert other["kinds"]["text"]["rows"] == 3


def test_every_kind_of_the_quickstart_exports(tmp_path: Path) -> None:
    from tests.test_examples import EXAMPLES, run_example

    run_example(EXAMPLES / "quickstart.py", tmp_path / "logdir")
    for fmt in ("parquet", "csv", "json"):
        manifest = _export(tmp_path / "logdir", tmp_path / fmt, "--format", fmt)
        assert {"graphs", "graph_nodes", "meshes", "embeddings", "traces", "custom_scalars"} <= set(
            manifest["kinds"]
        )
        for kind, entry in manifest["kinds"].items():
            assert len(_load(tmp_path / fmt, kind, fmt)) == entry["rows"] > 0


def test_corrupt_logdir_exports_what_is_readable(corpus_cases: dict, tmp_path: Path) -> None:
    case = corpus_cases["damage_in_second_file"]
    result = run_tbkit("export", "--logdir", str(case.logdir), "-o", str(tmp_path), "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert "1 problem(s)" in result.stderr and result.stderr.count("\n") == 1
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["problems"] == len(case.problems)
    problems = _load(tmp_path, "problems", "csv")
    assert set(zip(problems["path"], problems["offset"], strict=True)) == case.problems
    got = _load(tmp_path, "scalars", "csv")
    rows = sorted((str(r.run), r.tag, int(r.step), float(r.value)) for r in got.itertuples(index=False))
    assert rows == sorted((r[0], r[1], r[2], r[3]) for r in case.rows)


def test_purge_flag_keeps_orphaned_points(peer_fixtures: Path, tmp_path: Path) -> None:
    logdir = peer_fixtures / "torch"
    _export(logdir, tmp_path / "a", "--runs", "resumed", "--kinds", "scalars")
    _export(
        logdir, tmp_path / "b", "--runs", "resumed", "--kinds", "scalars", "--purge_orphaned_data", "false"
    )
    purged, kept = _load(tmp_path / "a", "scalars", "parquet"), _load(tmp_path / "b", "scalars", "parquet")
    assert len(kept) > len(purged) == len(tbkit.read(str(logdir), runs=["resumed"]).scalars())


def test_errors_and_usage(rich_logdir: Path, tmp_path: Path) -> None:
    unknown = run_tbkit(
        "export", "--logdir", str(rich_logdir), "-o", str(tmp_path), "--kinds", "scalars,nope"
    )
    assert unknown.returncode == 2 and "nope" in unknown.stderr
    bad_format = run_tbkit("export", "--logdir", str(rich_logdir), "-o", str(tmp_path), "--format", "xml")
    assert bad_format.returncode == 2
    nothing = run_tbkit(
        "export", "--logdir", str(rich_logdir), "-o", str(tmp_path / "n"), "--tags", "^absent$"
    )
    assert nothing.returncode == 1 and nothing.stderr.startswith("tbkit: error: nothing to export")
    assert nothing.stderr.count("\n") == 1
    missing = run_tbkit("export", "--logdir", str(tmp_path / "missing"), "-o", str(tmp_path / "m"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1


def test_nonfinite_values_in_json_are_null(rich_logdir: Path, tmp_path: Path) -> None:
    _export(rich_logdir, tmp_path, "--format", "json", "--tags", "^odd$", "--runs", "^train$")
    lines = (tmp_path / "scalars.jsonl").read_text(encoding="utf-8").splitlines()
    values = [json.loads(line)["value"] for line in lines]
    assert values == [None, None, None, 0.25]
    assert not any(math.isnan(v) for v in values if v is not None)
