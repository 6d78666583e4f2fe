"""A Keras ``fit`` logged with ``tbkit.keras.TensorBoard``, on any Keras backend (no TensorFlow needed).

    KERAS_BACKEND=torch python examples/keras_fit.py [LOGDIR]     # default: runs/keras
    tbkit serve --logdir runs/keras

Runs ``train/`` and ``validation/`` as Keras's own callback writes them: ``epoch_``-prefixed
metrics, the learning rate and weight histograms; the ``HParams`` callback records the trial.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras
import numpy as np

import tbkit
import tbkit.keras


def main() -> None:
    logdir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/keras")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1024, 8)).astype("float32")
    y = (x[:, :2].sum(axis=1) > 0).astype("float32")
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    callbacks = [
        # write_graph=False: Keras's to_json() would import TensorFlow when it is installed.
        tbkit.keras.TensorBoard(str(logdir), histogram_freq=1, write_graph=False),
        tbkit.keras.HParams(str(logdir / "train"), {"units": 16, "lr": 0.01}),
    ]
    model.fit(x, y, epochs=5, batch_size=64, validation_split=0.25, callbacks=callbacks, verbose=0)

    scalars = tbkit.read(str(logdir)).scalars()
    final = scalars.query("run == 'validation' and tag == 'epoch_accuracy'")["value"].iloc[-1]
    print(f"validation accuracy after 5 epochs: {final:.3f}")
    print(f"Wrote {logdir}; look at it with: tbkit serve --logdir {logdir}")


if __name__ == "__main__":
    main()
