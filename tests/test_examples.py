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
    result = run_example(EXAMPLES / "pandas_analysis.py", tmp_path / "sweep")
    summary = (tmp_path / "sweep" / "summary.csv").read_text().splitlines()
    assert summary[0].startswith("run,final_loss") and len(summary) == 5
    hp = tbkit.read(str(tmp_path / "sweep")).hparams()
    best = hp.sort_values("hparam/val_accuracy").iloc[-1]["run"]
    assert f"Best run: {best}" in result.stdout


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


def test_custom_plugin_registers_through_its_entry_point(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(EXAMPLES / "custom_plugin", source)  # the build leaves nothing in the repository
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    result = run_example(source / "demo.py", tmp_path / "logdir", env={"PYTHONPATH": path})
    assert result.stdout.count("model eval/confusion step") == 4
    assert "newer version" in result.stdout
    probe = "from tbkit.plugins import registry; print('confusion_matrix' in registry.plugin_names())"
    with_plugin = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path}
    )
    without = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert with_plugin.stdout.strip() == "True" and without.stdout.strip() == "False"
