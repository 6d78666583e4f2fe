"""The demo logdir holds every kind, each readable through ``tbkit.read``."""

from __future__ import annotations

import tbkit
from tbkit.demo import CLASSES, EMBEDDING_DIM, EMBEDDING_POINTS, RUNS, write_demo_logdir


def test_demo_has_every_kind(tmp_path):
    written = write_demo_logdir(str(tmp_path), steps=30)
    logdir = tbkit.read(str(tmp_path))
    runs = sorted(name for name, _ in RUNS)
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
