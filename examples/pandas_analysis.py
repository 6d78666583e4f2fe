"""Analyse a logdir with pandas: compare runs, smooth curves, find the best hyperparameters.

    python examples/pandas_analysis.py [LOGDIR]     # default: runs/sweep (written if empty)

Everything is a long-format DataFrame (``run, tag, step, wall_time, value``): filter, group,
pivot and plot with the pandas you know.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

import tbkit


def write_sweep(logdir: Path) -> None:
    """A small learning-rate sweep: 4 runs of 300 steps, a noisy training loss and a validation accuracy.

    The loss is a cross-entropy over 10 classes: it starts near ln(10) = 2.3 and decays towards
    a floor, faster with a larger learning rate, but the largest one is unstable and levels off
    higher. The validation accuracy (every 50 steps) rises from 0.1 (chance) as the loss falls.
    """
    rng = np.random.default_rng(0)
    start = math.log(10)
    for lr in (0.3, 0.1, 0.03, 0.01):
        rate = lr / 0.01 * 0.0025  # decay per step
        floor = 0.08 + 1.5 * max(0.0, lr - 0.1)  # too large a step: a higher plateau
        with tbkit.SummaryWriter(str(logdir / f"lr={lr}")) as w:
            for step in range(300):
                clean = floor + (start - floor) * math.exp(-rate * step)
                w.add_scalar("train/loss", clean * math.exp(0.08 * rng.standard_normal()), step)
                if step % 50 == 49:
                    accuracy = 1 - 0.39 * clean + 0.01 * rng.standard_normal()
                    w.add_scalar("val/accuracy", min(1.0, max(0.0, accuracy)), step)
            w.add_hparams({"lr": lr, "batch_size": 64}, {"hparam/val_accuracy": min(1.0, max(0.0, accuracy))})


def main() -> None:
    logdir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/sweep")
    if not logdir.exists() or not any(logdir.rglob("*tfevents*")):
        write_sweep(logdir)
    ld = tbkit.read(str(logdir))

    df = ld.scalars()  # long format: one row per point
    loss = df[df.tag == "train/loss"].copy()
    # TensorBoard-like smoothing per run (an exponential moving average, debiased by pandas' adjust=True)
    loss["smoothed"] = loss.groupby("run", observed=True)["value"].transform(
        lambda v: v.ewm(alpha=0.1).mean()
    )
    final = loss.groupby("run", observed=True).agg(
        final_loss=("smoothed", "last"),
        best_loss=("value", "min"),
        first_loss=("value", "first"),
        steps=("step", "max"),
    )
    print(
        "Training loss per run (final: smoothed; lower is better):\n",
        final.sort_values("final_loss").round(4),
    )
    for run, row in final.sort_values("final_loss").iterrows():
        drop = 1 - row.final_loss / row.first_loss
        print(f"  {run}: loss {row.first_loss:.3f} -> {row.final_loss:.3f} ({drop:.0%} lower)")
    print()

    wide = ld.scalars(pivot=True)  # run, step, one column per tag
    val = wide.dropna(subset=["val/accuracy"]).pivot(index="step", columns="run", values="val/accuracy")
    print("Validation accuracy by step (one column per run, 0-1):\n", val.round(3), "\n")

    hp = ld.hparams()  # one row per run: hyperparameters and final metrics
    best = hp.sort_values("hparam/val_accuracy", ascending=False).iloc[0]
    print(f"Best run: {best['run']} (lr={best['lr']}, val accuracy {best['hparam/val_accuracy']:.3f})")

    summary = final.join(hp.set_index("run")[["lr", "hparam/val_accuracy"]])
    out = logdir / "summary.csv"
    summary.to_csv(out)
    print(f"Wrote {out}")
    assert summary["final_loss"].notna().all() and len(summary) == 4
    assert (summary["final_loss"] > 0).all() and summary["hparam/val_accuracy"].between(0, 1).all()


if __name__ == "__main__":
    main()
