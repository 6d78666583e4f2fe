"""A Lightning training run logged with ``tbkit.integrations.lightning.TbkitLogger`` (CPU, seconds).

    python examples/lightning_run.py [SAVE_DIR]     # default: runs/lightning
    tbkit serve --logdir runs/lightning

The logger has the arguments and layout of Lightning's own ``TensorBoardLogger``
(``<save_dir>/<name>/version_<n>``), writes from rank zero only, and records the
hyperparameters as an hparams session closed with the fit's status.
"""

from __future__ import annotations

import sys
from pathlib import Path

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import tbkit
from tbkit.integrations.lightning import TbkitLogger


class Classifier(L.LightningModule):
    """A small MLP for a synthetic two-class problem."""

    def __init__(self, hidden: int = 32, lr: float = 0.05) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 2))
        self.example_input_array = torch.zeros(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], _: int) -> torch.Tensor:
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch: tuple[torch.Tensor, torch.Tensor], _: int) -> None:
        x, y = batch
        accuracy = (self(x).argmax(dim=1) == y).float().mean()
        self.log("val/accuracy", accuracy)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)


def loader(n: int, seed: int, shuffle: bool) -> DataLoader:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2, generator=gen)
    y = (x.pow(2).sum(dim=1) > 1.0).long()
    return DataLoader(TensorDataset(x, y), batch_size=64, shuffle=shuffle, generator=gen)


def main() -> None:
    save_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/lightning")
    torch.manual_seed(0)
    logger = TbkitLogger(str(save_dir), name="circle", log_graph=True)
    trainer = L.Trainer(
        max_epochs=8,
        logger=logger,
        accelerator="cpu",
        devices=1,
        log_every_n_steps=5,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
    )
    trainer.fit(Classifier(), loader(1024, 0, True), loader(256, 1, False))

    ld = tbkit.read(logger.log_dir)
    final = ld.scalars().query("tag == 'val/accuracy'")["value"].iloc[-1]
    print(f"validation accuracy after 8 epochs: {final:.3f}")
    print(f"hyperparameters logged: {sorted(c for c in ld.hparams().columns if c in ('hidden', 'lr'))}")
    print(f"Wrote {logger.log_dir}; look at it with: tbkit serve --logdir {save_dir}")


if __name__ == "__main__":
    main()
