"""The demo logdir holds every kind, each readable through ``tbkit.read``, and each chart shows
what it claims: real PR curves that improve, margin bands TensorBoard can draw, sane metrics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.cli.demo import CLASSES, EMBEDDING_DIM, EMBEDDING_POINTS, RUNS, write_demo_logdir
from tests.cli._logdirs import run_tbkit

RUN_NAMES = sorted(name for name, _ in RUNS)


def test_demo_has_every_kind(tmp_path):
    written = write_demo_logdir(str(tmp_path), steps=30)
    logdir = tbkit.read(str(tmp_path))
    runs = RUN_NAMES
    assert sorted(written) == runs
    assert sorted(logdir.hparams()["run"]) == runs
    assert set(logdir.scalars()["tag"]) >= {"train/loss", "hparam/final_loss", "train/loss_band/upper"}
    assert sorted(set(logdir.pr_curves()["run"])) == runs
    assert sorted(set(logdir.meshes()["run"])) == runs
    assert sorted(set(logdir.graph_nodes()["run"])) == runs
    assert sorted(set(logdir.custom_scalars()["run"])) == runs
    assert sorted(set(logdir.traces()["run"])) == runs
    embeddings = logdir.embeddings()
    assert sorted(embeddings["run"]) == runs
    for _, row in embeddings.iterrows():
        assert row["tensor"].shape == (EMBEDDING_POINTS, EMBEDDING_DIM)
        assert set(row["metadata"].iloc[:, 0]) == set(CLASSES)


@pytest.fixture(scope="module", params=[30, 400], ids=lambda steps: f"steps{steps}")
def demo(request, tmp_path_factory) -> tbkit.Logdir:
    """The demo read back: a short one (as in the tests) and a long one (loss near its floor)."""
    root = tmp_path_factory.mktemp(f"demo{request.param}")
    write_demo_logdir(str(root), steps=request.param)
    return tbkit.read(str(root))


def _area(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the PR curve (trapezoids over recall; thresholds ascend, so recall descends)."""
    return float(np.sum((recall[:-1] - recall[1:]) * (precision[:-1] + precision[1:]) / 2))


def test_pr_curves_are_real_curves_that_improve(demo):
    frame = demo.pr_curves()
    assert sorted(set(frame["run"])) == RUN_NAMES
    for run, curves in frame.groupby("run"):
        curves = curves.sort_values("step")
        assert len(curves) >= 2, run
        areas = []
        for _, row in curves.iterrows():
            precision, recall = row["precision"], row["recall"]
            # Points off the curve's edges: neither all nor none of the positives found, and
            # precision neither chance nor perfect. A perfect classifier has none of these.
            inside = (recall > 0) & (recall < 1) & (precision > 0.55) & (precision < 0.99)
            assert len(np.unique(np.round(precision[inside], 6))) >= 5, (run, row["step"])
            assert len(np.unique(np.round(recall[inside], 6))) >= 5, (run, row["step"])
            areas.append(_area(recall, precision))
        assert all(0.5 < a < 0.99 for a in areas), (run, areas)
        assert all(later > areas[0] for later in areas[1:]), (run, areas)


def _margin_charts(demo: tbkit.Logdir) -> list[list[str]]:
    charts = [
        tags
        for layout in demo.custom_scalars()["layout"]
        for category in layout.values()
        for kind, tags in category.values()
        if kind == "Margin"
    ]
    assert charts, "the demo's layout has a margin chart"
    return charts


def test_margin_tags_share_steps_and_wall_times(demo):
    scalars = demo.scalars()
    for value, lower, upper in _margin_charts(demo):
        for run in RUN_NAMES:
            series = {
                tag: scalars[(scalars["run"] == run) & (scalars["tag"] == tag)].sort_values("step")
                for tag in (value, lower, upper)
            }
            steps = {tag: s["step"].tolist() for tag, s in series.items()}
            assert steps[value], (run, value)
            assert steps[lower] == steps[value] == steps[upper], run  # TensorBoard's margin check
            walls = {tag: s["wall_time"].tolist() for tag, s in series.items()}
            assert walls[lower] == walls[value] == walls[upper], run
            v, lo, hi = (series[tag]["value"].to_numpy() for tag in (value, lower, upper))
            assert np.all(lo < v) and np.all(v < hi), run  # the band is around its value


def test_loss_and_accuracy_stay_in_range(demo):
    scalars = demo.scalars()
    loss = scalars[scalars["tag"] == "train/loss"]["value"]
    accuracy = scalars[scalars["tag"] == "train/accuracy"]["value"]
    assert len(loss) > 0 and len(accuracy) > 0
    assert loss.min() > 0  # a cross-entropy is never negative
    assert accuracy.min() >= 0 and accuracy.max() <= 1


def test_confusion_matrix_is_a_trained_classifiers(demo):
    tensors = demo.tensors()
    confusion = {
        row["run"]: row["value"] for _, row in tensors[tensors["tag"] == "final/confusion"].iterrows()
    }
    assert sorted(confusion) == RUN_NAMES
    for run, matrix in confusion.items():
        assert matrix.shape == (len(CLASSES), len(CLASSES)), run
        assert np.all(matrix.argmax(axis=1) == np.arange(len(CLASSES))), (run, matrix)  # mostly right
    accuracy = {run: np.trace(m) / m.sum() for run, m in confusion.items()}
    assert accuracy["lr_0.1"] > accuracy["lr_0.01"], accuracy  # the faster learner is the better one


def test_demo_no_serve_writes_a_logdir(tmp_path: Path) -> None:
    result = run_tbkit("demo", "--no-serve", "--logdir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert str(tmp_path) in result.stdout
    runs = tbkit.read(str(tmp_path)).provider.list_plugins()
    assert {"scalars", "histograms", "images", "audio", "text"} <= set(runs)
