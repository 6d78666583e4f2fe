"""A PyTorch training loop logged with tbkit: ``tbkit.torch.watch`` and the profiler handler.

    python examples/pytorch_training.py [LOGDIR]     # default: runs/pytorch
    tbkit serve --logdir runs/pytorch

A small MLP learns a synthetic two-class problem on the CPU in a few seconds. Logged: losses,
accuracy, learning rate, weight and gradient histograms and norms (``watch``), the model graph,
hyperparameters, and a profiler trace of a few training steps
(``<logdir>/plugins/profile/<session>/``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch import nn

import tbkit
import tbkit.profiler
import tbkit.torch
from tbkit import SummaryWriter


def data(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Points in the plane, labelled by which side of a circle they fall on."""
    x = torch.randn(n, 2, generator=generator)
    y = (x.pow(2).sum(dim=1) > 1.0).long()
    return x, y


def main() -> None:
    logdir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/pytorch")
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a model this small runs fastest on one thread
    gen = torch.Generator().manual_seed(0)
    x_train, y_train = data(2048, gen)
    x_val, y_val = data(512, gen)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    epochs, batch = 20, 128

    writer = SummaryWriter(str(logdir))
    tbkit.torch.log_graph(model, writer, x_train[:1])  # traced with torch.jit.trace
    watched = tbkit.torch.watch(model, writer, log="all", log_freq=50)  # weights and gradients
    profiler = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=tbkit.profiler.trace_handler(str(logdir)),
    )
    step = 0
    with writer, profiler:
        for _ in range(epochs):
            model.train()
            perm = torch.randperm(len(x_train), generator=gen)
            for i in range(0, len(x_train), batch):
                idx = perm[i : i + batch]
                loss = loss_fn(model(x_train[idx]), y_train[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                profiler.step()
                writer.add_scalar("train/loss", loss, step)  # a tensor is fine: no .item() needed
                step += 1
            model.eval()
            with torch.no_grad():
                logits = model(x_val)
                val_loss = loss_fn(logits, y_val)
                accuracy = (logits.argmax(dim=1) == y_val).float().mean()
            writer.add_scalar("val/loss", val_loss, step)
            writer.add_scalar("val/accuracy", accuracy, step)
            tbkit.torch.log_learning_rates(opt, writer, step)
            sched.step()
        watched.remove()
        writer.add_hparams(
            {"lr": 0.1, "momentum": 0.9, "batch": batch, "epochs": epochs},
            {"hparam/val_accuracy": float(accuracy)},
        )

    ld = tbkit.read(str(logdir))
    final = ld.scalars().query("tag == 'val/accuracy'")["value"].iloc[-1]
    print(f"validation accuracy after {epochs} epochs: {final:.3f}")
    traces = ld.traces()
    print(f"profiler: {len(traces)} trace(s); busiest ops:")
    print(traces["top_ops"].iloc[0].head(5).to_string(index=False))
    assert final > 0.8, "the model should learn this problem"
    print(f"Wrote {logdir}; look at it with: tbkit serve --logdir {logdir}")


if __name__ == "__main__":
    main()
