"""tbkit.integrations.lightning.TbkitLogger with a tiny LightningModule trained on the CPU."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pl = pytest.importorskip("lightning.pytorch")

from _readers import tensorboard_runs  # noqa: E402

import tbkit  # noqa: E402
from tbkit.integrations.lightning import TbkitLogger  # noqa: E402

pytestmark = pytest.mark.interop


class TinyModel(pl.LightningModule):
    def __init__(self, lr: float = 0.05, hidden: int = 8, optim: dict | None = None) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
        )
        self.example_input_array = torch.zeros(2, 4)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


def _loader(seed: int = 0) -> torch.utils.data.DataLoader:
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(32, 4, generator=g)
    return torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8
    )


def _fit(logger, epochs: int = 2) -> pl.Trainer:
    pl.seed_everything(0, verbose=False)
    trainer = pl.Trainer(
        max_epochs=epochs,
        accelerator="cpu",
        devices=1,
        logger=logger,
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning's advice about num_workers on a 32-sample loader
        trainer.fit(TinyModel(optim={"name": "sgd", "momentum": 0.0}), _loader(), _loader(1))
    return trainer


def test_logger_writes_metrics_hparams_graph_and_hparams_yaml(tmp_path) -> None:
    logger = TbkitLogger(str(tmp_path), name="exp", log_graph=True)
    trainer = _fit(logger)
    log_dir = tmp_path / "exp" / "version_0"
    assert logger.log_dir == str(log_dir) and logger.version == 0
    assert (log_dir / "hparams.yaml").read_text().count("lr: 0.05") == 1

    ld = tbkit.read(str(tmp_path))
    assert ld.runs().run.tolist() == ["exp/version_0"]
    s = ld.scalars()
    steps = {tag: g.step.tolist() for tag, g in s.groupby("tag", observed=True)}
    # 4 batches an epoch, 2 epochs: a train_loss per step; val_loss and epoch after each epoch
    assert steps["train_loss"] == list(range(8))
    assert steps["val_loss"] == [3, 7]
    assert set(steps["epoch"]) <= set(range(8)) and s[s.tag == "epoch"].value.max() == 1
    assert float(s[s.tag == "val_loss"].value.iloc[-1]) == pytest.approx(
        float(trainer.callback_metrics["val_loss"]), rel=1e-6
    )

    hp = ld.hparams()
    assert len(hp) == 1
    row = hp.iloc[0]
    assert row.status == "success"
    assert (row.lr, row.hidden, row["optim/name"], row["optim/momentum"]) == (0.05, 8, "sgd", 0.0)
    assert row.hp_metric == -1

    graph_ops = set(ld.graph_nodes().op)
    assert any("linear" in op.lower() for op in graph_ops), graph_ops

    seen = tensorboard_runs(tmp_path)["exp/version_0"]  # TensorBoard's own reader
    assert {"train_loss", "val_loss", "epoch", "hp_metric"} <= set(seen["scalars"])
    assert {"_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"} <= set(
        seen["hparams"]
    )
    assert "__run_graph__" not in seen.get("scalars", [])

    second = TbkitLogger(str(tmp_path), name="exp")
    assert second.version == 1


def test_logger_api_directly(tmp_path) -> None:
    logger = TbkitLogger(str(tmp_path), name="", version="run-a", prefix="fit", sub_dir="sub", flush_secs=60)
    assert logger.log_dir == str(tmp_path / "run-a" / "sub")
    logger.log_metrics({"loss": torch.tensor(0.5), "acc": 0.75, "pair": {"x": 1.0, "y": 2.0}}, step=3)
    logger.log_hyperparams({"lr": 0.1, "layers": [1, 2], "arr": np.zeros((2, 2))}, metrics=0.9)
    logger.finalize("failed")
    logger.finalize("failed")  # a second call finds nothing to do

    ld = tbkit.read(str(tmp_path))
    s = ld.scalars()
    got = {(r.run, r.tag): r.value for r in s.itertuples()}
    assert got[("run-a/sub", "fit-loss")] == 0.5
    assert got[("run-a/sub", "fit-acc")] == 0.75
    assert got[("run-a/sub/fit-pair_x", "fit-pair")] == 1.0  # add_scalars: one sub-run per key
    hp = ld.hparams()
    row = hp[hp.run == "run-a/sub"].iloc[0]
    assert row.status == "failure" and row.lr == 0.1
    assert row.layers == "[1, 2]" and row.arr.startswith("[[")
    assert row.hp_metric == pytest.approx(0.9)


def test_non_zero_rank_writes_nothing(tmp_path, monkeypatch) -> None:
    from lightning.pytorch.utilities.rank_zero import rank_zero_only

    monkeypatch.setattr(rank_zero_only, "rank", 1)
    logger = TbkitLogger(str(tmp_path))
    logger.log_metrics({"loss": 1.0}, step=0)
    logger.log_hyperparams({"lr": 0.1})
    logger.experiment.add_scalar("x", 1.0, 0)  # Lightning's dummy experiment accepts anything
    logger.save()
    logger.finalize("success")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_same_layout_as_lightnings_tensorboard_logger(tmp_path) -> None:
    pytest.importorskip("tensorboard")
    from lightning.pytorch.loggers import TensorBoardLogger

    _fit(TensorBoardLogger(str(tmp_path / "theirs"), name="exp", log_graph=True))
    _fit(TbkitLogger(str(tmp_path / "ours"), name="exp", log_graph=True))
    theirs, ours = tbkit.read(str(tmp_path / "theirs")), tbkit.read(str(tmp_path / "ours"))
    assert theirs.runs().run.tolist() == ours.runs().run.tolist() == ["exp/version_0"]
    a, b = theirs.scalars(), ours.scalars()
    assert sorted(a.tag.unique()) == sorted(b.tag.unique())
    for tag in a.tag.unique():
        assert a[a.tag == tag].step.tolist() == b[b.tag == tag].step.tolist(), tag
        np.testing.assert_allclose(b[b.tag == tag].value, a[a.tag == tag].value, rtol=1e-5)
    hp_a, hp_b = theirs.hparams(), ours.hparams()
    assert [c for c in hp_a.columns if c not in ("start_time", "end_time")] == [
        c for c in hp_b.columns if c not in ("start_time", "end_time")
    ]
    assert (tmp_path / "theirs/exp/version_0/hparams.yaml").read_text() == (
        tmp_path / "ours/exp/version_0/hparams.yaml"
    ).read_text()
    # torch's add_graph also writes a RunMetadata; tbkit's writes the op graph only
    op_graphs = [ld.graphs() for ld in (theirs, ours)]
    assert [len(g[g.kind == "op_graph"]) for g in op_graphs] == [1, 1]
