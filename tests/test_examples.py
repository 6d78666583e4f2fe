"""Every script under examples/ runs (a subprocess, into a temporary logdir) and leaves what it promises."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tbkit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(
    script: Path, logdir: Path, *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python SCRIPT LOGDIR`` from a temporary working directory; fails the test on a non-zero exit."""
    full_env = {**os.environ, **(env or {})}
    result = subprocess.run(
        [sys.executable, str(script), str(logdir)],
        capture_output=True,
        text=True,
        timeout=600,
        env=full_env,
        cwd=logdir.parent,
    )
    assert result.returncode == 0, f"{script.name} failed:\n{result.stdout}\n{result.stderr}"
    return result


def test_quickstart_writes_every_kind(tmp_path: Path) -> None:
    result = run_example(EXAMPLES / "quickstart.py", tmp_path / "logdir")
    ld = tbkit.read(str(tmp_path / "logdir"))
    plugins = set(ld.tags()["plugin"])
    assert {"scalars", "histograms", "images", "audio", "text", "pr_curves", "mesh", "hparams"} <= plugins
    assert {"tensor", "custom_scalars", "graphs"} <= plugins
    assert len(ld.embeddings()) == 2 and len(ld.traces()) == 2 and len(ld.graph_nodes()) == 6
    assert "final loss per run" in result.stdout


def test_pandas_analysis_summarises_a_sweep(tmp_path: Path) -> None:
    import re

    import pandas as pd

    result = run_example(EXAMPLES / "pandas_analysis.py", tmp_path / "sweep")
    summary = (tmp_path / "sweep" / "summary.csv").read_text().splitlines()
    assert summary[0].startswith("run,final_loss") and len(summary) == 5
    hp = tbkit.read(str(tmp_path / "sweep")).hparams()
    best = hp.sort_values("hparam/val_accuracy").iloc[-1]["run"]
    assert f"Best run: {best}" in result.stdout

    # Sensible values: a cross-entropy loss is positive and falls; an accuracy is within [0, 1].
    table = pd.read_csv(tmp_path / "sweep" / "summary.csv")
    assert (table["best_loss"] > 0).all() and (table["final_loss"] > 0).all()
    assert (table["final_loss"] < table["first_loss"]).all()
    assert table["hparam/val_accuracy"].between(0, 1).all()
    falls = re.findall(r"loss (\d+\.\d+) -> (\d+\.\d+)", result.stdout)
    assert len(falls) == 4 and all(0 < float(last) < float(first) for first, last in falls)
    printed = float(re.search(r"val accuracy (-?\d+\.\d+)\)", result.stdout).group(1))
    assert 0 <= printed <= 1
    accuracies = result.stdout.split("Validation accuracy by step")[1].split("Best run")[0]
    rows = [line.split() for line in accuracies.splitlines() if re.match(r"\d+\s", line)]
    assert len(rows) == 6 and all(0 <= float(x) <= 1 for row in rows for x in row[1:])


def test_pytorch_training_logs_and_profiles(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    run_example(EXAMPLES / "pytorch_training.py", tmp_path / "logdir")
    ld = tbkit.read(str(tmp_path / "logdir"))
    tags = set(ld.tags()["tag"])
    assert {"train/loss", "val/accuracy", "learning_rate", "__run_graph__", "gradient_norms/total"} <= tags
    assert any(t.startswith("gradients/") for t in tags) and any(t.startswith("parameters/") for t in tags)
    traces = ld.traces()
    assert len(traces) == 1 and traces["events"].iloc[0] > 0
    assert (tmp_path / "logdir" / "plugins" / "profile").is_dir()


@pytest.mark.slow
def test_keras_fit_writes_train_and_validation_runs(tmp_path: Path) -> None:
    pytest.importorskip("keras")
    result = run_example(EXAMPLES / "keras_fit.py", tmp_path / "logdir", env={"KERAS_BACKEND": "torch"})
    ld = tbkit.read(str(tmp_path / "logdir"))
    tags = ld.tags()
    assert set(tags["run"]) == {"train", "validation"}
    train = set(tags.query("run == 'train'")["tag"])
    assert {
        "epoch_loss",
        "epoch_accuracy",
        "epoch_learning_rate",
        "sequential/dense/kernel/histogram",
    } <= train
    assert ld.hparams()["units"].tolist() == [16]
    assert "validation accuracy after 5 epochs" in result.stdout


@pytest.mark.slow
def test_lightning_run_logs_metrics_and_hparams(tmp_path: Path) -> None:
    pytest.importorskip("lightning")
    result = run_example(EXAMPLES / "lightning_run.py", tmp_path / "save")
    version = tmp_path / "save" / "circle" / "version_0"
    ld = tbkit.read(str(version))
    assert {"train/loss", "val/accuracy"} <= set(ld.tags()["tag"])
    assert {"hidden", "lr"} <= set(ld.hparams().columns)
    assert (version / "hparams.yaml").is_file()
    assert "hyperparameters logged: ['hidden', 'lr']" in result.stdout


CUSTOM_PLUGIN = EXAMPLES / "custom_plugin"

_FRAME_PROBE = """
import json, sys, warnings
import tbkit
from tbkit.plugins import registry
from tbkit.reader.logdir import frame_kinds
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # the refused series warns once
    ld = tbkit.read(sys.argv[1])
    frame = ld.frame("confusion")
    tensors = ld.tensors()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    routes = registry.route_modules()
spec = registry.plugins()["confusion_matrix"]
print(json.dumps({
    "columns": list(frame.columns),
    "runs": sorted(set(frame["run"])),
    "steps": frame["step"].tolist(),
    "matrices": [m.tolist() for m in frame["matrix"]],
    "dtypes": sorted({str(m.dtype) for m in frame["matrix"]}),
    "accuracy": frame["accuracy"].tolist(),
    "in_kinds": "confusion" in frame_kinds(),
    "tensors_rows": len(tensors),
    "routes": routes["confusion_matrix"].__name__,
    "deprecated": [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)],
    "frames": dict(spec.frames),
}))
"""


def install_custom_plugin(tmp_path: Path) -> tuple[Path, Path]:
    """pip-install a copy of examples/custom_plugin into ``tmp_path/site``: ``(source copy, site dir)``."""
    source = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    shutil.copytree(CUSTOM_PLUGIN, source, ignore=ignore)
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    return source, site


def with_site(site: Path) -> str:
    """A PYTHONPATH putting ``site`` first."""
    return os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)


def test_custom_plugin_registers_through_its_entry_point(tmp_path: Path) -> None:
    import configparser
    import json

    import numpy as np

    source, site = install_custom_plugin(tmp_path)  # the build leaves nothing in the repository
    path = with_site(site)
    result = run_example(source / "demo.py", tmp_path / "logdir", env={"PYTHONPATH": path})
    assert result.stdout.count("model eval/confusion step") == 4
    assert "newer version" in result.stdout
    probe = "from tbkit.plugins import registry; print('confusion_matrix' in registry.plugin_names())"
    with_plugin = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path}
    )
    without = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert with_plugin.stdout.strip() == "True" and without.stdout.strip() == "False"

    # Registered once, under the one group: the package's PLUGINS declares every part.
    installed = configparser.ConfigParser()
    installed.read(next(site.glob("tbkit_confusion-*.dist-info")) / "entry_points.txt")
    groups = {group: dict(installed[group]) for group in installed.sections()}
    assert groups == {"tbkit.plugins": {"confusion_matrix": "tbkit_confusion"}}

    # The frame, through the entry point: tbkit.read(logdir).frame("confusion").
    probed = subprocess.run(
        [sys.executable, "-c", _FRAME_PROBE, str(tmp_path / "logdir")],
        capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert probed.returncode == 0, probed.stderr
    got = json.loads(probed.stdout)
    assert got["columns"] == ["run", "tag", "step", "wall_time", "matrix", "accuracy"]
    assert got["runs"] == ["model"] and got["steps"] == [0, 1, 2, 3]  # the newer payload is refused
    rng = np.random.default_rng(0)  # the demo's matrices
    want = [rng.integers(0, 20, (3, 3)) + np.eye(3, dtype=int) * 10 * step for step in range(4)]
    assert got["matrices"] == [m.tolist() for m in want] and got["dtypes"] == ["int64"]
    assert got["accuracy"] == pytest.approx([np.trace(m) / m.sum() for m in want])
    assert got["in_kinds"] and got["tensors_rows"] == 0  # a dedicated frame: not in tensors()
    assert got["routes"] == "tbkit_confusion.routes" and got["deprecated"] == []
    assert got["frames"] == {"confusion": "tbkit_confusion.frames:confusion_frame"}


def test_only_the_custom_plugin_folder_names_its_kind() -> None:
    """The example adds its kind without touching a file outside its folder (tests aside)."""
    root = EXAMPLES.parent
    skip_dirs = {"__pycache__", "node_modules", ".git", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    places = [root / name for name in ("tbkit", "docs", "bench", "examples", ".ci")]
    files = [p for p in root.iterdir() if p.is_file()]
    for top in places:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d not in skip_dirs and not d.endswith(".egg-info")]
            if Path(dirpath) == EXAMPLES:
                dirnames[:] = [d for d in dirnames if d != CUSTOM_PLUGIN.name]
            files.extend(Path(dirpath, name) for name in filenames)
    assert len(files) > 100  # the walk did see the package
    naming = [str(p.relative_to(root)) for p in files if b"confusion_matrix" in p.read_bytes()]
    assert naming == []
