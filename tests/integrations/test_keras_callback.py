"""tbkit.keras: the TensorBoard and HParams callbacks on a real ``model.fit`` (torch backend).

The expected layout (runs, tags, steps) is the one of ``keras/src/callbacks/tensorboard.py``;
the slow test runs Keras's own callback (which imports TensorFlow) beside tbkit's in the same
``fit`` and compares what both wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from _readers import tensorboard_runs  # noqa: E402

import tbkit  # noqa: E402
import tbkit.keras as tbkeras  # noqa: E402
from tbkit.plugins.histograms.summary import equal_width_buckets  # noqa: E402

pytestmark = pytest.mark.interop

EPOCHS, BATCH, SAMPLES = 3, 16, 64  # validation_split=0.25: 48 training samples, 3 batches an epoch


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.random((SAMPLES, 4)).astype("float32")
    return x, x.sum(axis=1, keepdims=True)


def _model():  # type: ignore[no-untyped-def]
    # No keras.utils.set_random_seed: it imports TensorFlow when installed; every check compares
    # with values of the same fit, so the initial weights need not be reproducible.
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)], name="net"
    )
    model.compile(keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
    return model


def _series(logdir: Path) -> dict[tuple[str, str], list[int]]:
    """``{(run, tag): steps}`` of every scalar, histogram and image series."""
    ld = tbkit.read(str(logdir))
    out: dict[tuple[str, str], list[int]] = {}
    for frame in (ld.scalars(), ld.histograms(), ld.images()):
        for (run, tag), group in frame.groupby(["run", "tag"], observed=True):
            out[(run, tag)] = group.step.tolist()
    return out


def test_epoch_layout_values_histograms_and_images(tmp_path) -> None:
    x, y = _data()
    model = _model()
    # write_graph=False: Keras's model.to_json() imports TensorFlow when it is installed (the
    # slow test checks the graph against Keras's own callback).
    cb = tbkeras.TensorBoard(
        str(tmp_path), histogram_freq=1, write_images=True, write_steps_per_second=True, write_graph=False
    )
    history = model.fit(
        x, y, epochs=EPOCHS, batch_size=BATCH, validation_split=0.25, callbacks=[cb], verbose=0
    )
    model.evaluate(x, y, batch_size=BATCH, callbacks=[cb], verbose=0)

    epochs = list(range(EPOCHS))
    weights = ["net/dense/kernel", "net/dense/bias", "net/dense_1/kernel", "net/dense_1/bias"]
    expected = {
        **{("train", f"epoch_{m}"): epochs for m in ("loss", "mae", "learning_rate", "steps_per_second")},
        **{("validation", f"epoch_{m}"): epochs for m in ("loss", "mae")},
        # after each epoch's validation (3, 6, 9 iterations) and after the final evaluate (9)
        **{("validation", f"evaluation_{m}_vs_iterations"): [3, 6, 9, 9] for m in ("loss", "mae")},
        **{("train", f"{w}/histogram"): epochs for w in weights},
        # a squeezed (1,) bias is a scalar: Keras draws no image of it
        **{("train", f"{w}/image"): epochs for w in weights if w != "net/dense_1/bias"},
    }
    assert _series(tmp_path) == expected

    ld = tbkit.read(str(tmp_path))
    s = ld.scalars()

    def values(run: str, tag: str) -> list[float]:
        return s[(s.run == run) & (s.tag == tag)].value.tolist()

    np.testing.assert_allclose(values("train", "epoch_loss"), history.history["loss"], rtol=1e-6)
    np.testing.assert_allclose(values("validation", "epoch_mae"), history.history["val_mae"], rtol=1e-6)
    np.testing.assert_allclose(values("train", "epoch_learning_rate"), [0.01] * EPOCHS, rtol=1e-6)
    assert all(v > 0 for v in values("train", "epoch_steps_per_second"))

    hist = ld.histograms()
    last = hist[(hist.tag == "net/dense/kernel/histogram") & (hist.step == EPOCHS - 1)].iloc[0]
    want = equal_width_buckets(keras.ops.convert_to_numpy(model.layers[0].kernel))
    np.testing.assert_allclose(last.counts, want[:, 2])
    np.testing.assert_allclose(last.edges, np.append(want[:, 0], want[-1, 1]))

    images = ld.images()
    kernel = images[(images.tag == "net/dense/kernel/image") & (images.step == EPOCHS - 1)].iloc[0]
    assert (kernel.width, kernel.height) == (8, 4)  # the (4, 8) kernel, longer side across
    pixels = ld.decode_image(kernel.data)
    k = keras.ops.convert_to_numpy(model.layers[0].kernel)
    np.testing.assert_array_equal(pixels, np.clip(k * 255.5, 0, 255).astype(np.uint8))

    assert ld.graphs().empty
    seen = tensorboard_runs(tmp_path)  # TensorBoard's own reader
    assert set(seen) == {"train", "validation"}
    assert set(seen["train"]["scalars"]) == {
        t for r, t in expected if r == "train" and t.startswith("epoch_")
    }
    assert set(seen["train"]["histograms"]) == {f"{w}/histogram" for w in weights}
    assert set(seen["validation"]["scalars"]) == {t for r, t in expected if r == "validation"}


def test_integer_update_freq_logs_batch_metrics(tmp_path) -> None:
    x, y = _data()
    model = _model()
    batch_logs: list[dict] = []
    record = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: batch_logs.append(dict(logs))
    )
    cb = tbkeras.TensorBoard(str(tmp_path), update_freq=2, write_graph=False)
    model.fit(x, y, epochs=EPOCHS, batch_size=BATCH, validation_split=0.25, callbacks=[record, cb], verbose=0)
    series = _series(tmp_path)
    batches = EPOCHS * 3
    assert series[("train", "batch_loss")] == list(range(2, batches + 1, 2))
    assert series[("train", "batch_mae")] == list(range(2, batches + 1, 2))
    assert series[("train", "epoch_loss")] == list(range(EPOCHS))  # every epoch, unlike Keras's own
    s = tbkit.read(str(tmp_path)).scalars()
    got = s[s.tag == "batch_loss"].value.tolist()
    np.testing.assert_allclose(got, [batch_logs[i - 1]["loss"] for i in range(2, batches + 1, 2)], rtol=1e-6)
    assert not any(t.startswith("keras") for _, t in series)


def test_hparams_callback_records_the_trial(tmp_path) -> None:
    x, y = _data()
    model = _model()
    trial = tmp_path / "trial-1"
    callbacks = [
        tbkeras.TensorBoard(str(trial), write_graph=False),
        tbkeras.HParams(str(trial), {"lr": 0.01, "units": 8, "optimizer": "adam", "bn": False}),
    ]
    history = model.fit(
        x, y, epochs=EPOCHS, batch_size=BATCH, validation_split=0.25, callbacks=callbacks, verbose=0
    )
    hp = tbkit.read(str(tmp_path)).hparams()
    assert len(hp) == 1
    row = hp.iloc[0]
    assert row.run == "trial-1" and row.status == "success"
    assert (row.lr, row.units, row.optimizer, bool(row.bn)) == (0.01, 8, "adam", False)
    for metric in ("loss", "val_loss", "mae", "val_mae"):
        assert row[metric] == pytest.approx(history.history[metric][-1], rel=1e-6)
    s = tbkit.read(str(trial)).scalars()
    assert set(s[s.run == "."].step) == {EPOCHS - 1}

    seen = tensorboard_runs(tmp_path)
    assert "hparams" in seen["trial-1"]
    assert {"_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"} <= set(
        seen["trial-1"]["hparams"]
    )


def test_hparams_metrics_filter_and_non_zero_rank(tmp_path) -> None:
    x, y = _data()
    model = _model()
    callbacks = [
        tbkeras.HParams(str(tmp_path / "a"), {"lr": 0.01}, metrics=["val_loss"]),
        tbkeras.TensorBoard(str(tmp_path / "b"), histogram_freq=1, rank=1),
        tbkeras.HParams(str(tmp_path / "c"), {"lr": 0.01}, rank=1),
    ]
    model.fit(x, y, epochs=2, batch_size=BATCH, validation_split=0.25, callbacks=callbacks, verbose=0)
    hp = tbkit.read(str(tmp_path)).hparams()
    assert hp.run.tolist() == ["a"]
    assert [c for c in hp.columns if "loss" in c or "mae" in c] == ["val_loss"]
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_embeddings_and_bad_arguments(tmp_path) -> None:
    model = keras.Sequential(
        [
            keras.Input((3,), dtype="int32"),
            keras.layers.Embedding(10, 4, name="words"),
            keras.layers.Flatten(),
        ]
    )
    model.add(keras.layers.Dense(1))
    model.compile("sgd", "mse")
    labels = tmp_path / "labels.tsv"
    labels.write_text("".join(f"word{i}\n" for i in range(10)))
    cb = tbkeras.TensorBoard(
        str(tmp_path / "logs"), embeddings_freq=1, embeddings_metadata=str(labels), write_graph=False
    )
    x = np.random.default_rng(0).integers(0, 10, (8, 3))
    model.fit(x, np.zeros((8, 1)), epochs=2, batch_size=4, callbacks=[cb], verbose=0)
    emb = tbkit.read(str(tmp_path / "logs")).embeddings()
    assert sorted(emb.step.tolist()) == [0, 1] and set(emb.run) == {"train"}
    last = emb[emb.step == 1].iloc[0]
    np.testing.assert_allclose(last.tensor, keras.ops.convert_to_numpy(model.layers[0].embeddings), rtol=1e-6)
    assert last.metadata.iloc[:, 0].tolist() == [f"word{i}" for i in range(10)]

    with pytest.raises(ValueError, match="profile_batch"):
        tbkeras.TensorBoard(str(tmp_path), profile_batch=5)
    for bad in (0, -2, "often", 1.5):
        with pytest.raises(ValueError, match="update_freq"):
            tbkeras.TensorBoard(str(tmp_path), update_freq=bad)
    with pytest.raises(TypeError, match="hparams"):
        tbkeras.HParams(str(tmp_path), [("lr", 1)])


_BOTH = textwrap.dedent(
    """
    import os, sys
    import numpy as np, keras, tbkit.keras
    out = sys.argv[1]
    for update_freq in ("epoch", 2):
        keras.utils.set_random_seed(0)
        rng = np.random.default_rng(0)
        x = rng.random((64, 4)).astype("float32")
        y = x.sum(axis=1, keepdims=True)
        model = keras.Sequential(
            [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)], name="net"
        )
        model.compile(keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
        kw = dict(histogram_freq=1, write_images=True, write_steps_per_second=True, update_freq=update_freq)
        callbacks = [
            keras.callbacks.TensorBoard(f"{out}/keras-{update_freq}", **kw),
            tbkit.keras.TensorBoard(f"{out}/tbkit-{update_freq}", **kw),
        ]
        model.fit(x, y, epochs=3, batch_size=16, validation_split=0.25, callbacks=callbacks, verbose=0)
        model.evaluate(x, y, batch_size=16, callbacks=callbacks, verbose=0)
    """
)


@pytest.mark.slow
def test_same_layout_and_values_as_keras_own_callback(tmp_path) -> None:
    env = {**os.environ, "KERAS_BACKEND": "torch", "TF_CPP_MIN_LOG_LEVEL": "3"}
    subprocess.run([sys.executable, "-c", _BOTH, str(tmp_path)], check=True, env=env, capture_output=True)
    for update_freq in ("epoch", "2"):
        theirs, ours = (
            tbkit.read(str(tmp_path / f"keras-{update_freq}")),
            tbkit.read(str(tmp_path / f"tbkit-{update_freq}")),
        )
        # Same runs, same (run, tag, plugin) series.
        key = ["run", "tag", "plugin"]
        assert sorted(map(tuple, theirs.tags()[key].values)) == sorted(map(tuple, ours.tags()[key].values))
        their_steps, our_steps = (
            _series(tmp_path / f"keras-{update_freq}"),
            _series(tmp_path / f"tbkit-{update_freq}"),
        )
        for series, steps in their_steps.items():
            if update_freq == "epoch" or series[1].startswith("batch_"):
                assert our_steps[series] == steps, series
            else:  # Keras drops epoch summaries whose last batch count is odd; tbkit writes them all
                assert set(steps) <= set(our_steps[series]), series
        # Same values (timings aside), histograms and weight images.
        a, b = theirs.scalars(), ours.scalars()
        a = a[~a.tag.str.contains("steps_per_second")].set_index(["run", "tag", "step"]).value
        b = b[~b.tag.str.contains("steps_per_second")].set_index(["run", "tag", "step"]).value
        for index, value in a.items():
            assert np.isclose(b.loc[index], value, rtol=1e-6).any(), index
        ha, hb = theirs.histograms(), ours.histograms()
        merged = ha.merge(hb, on=["run", "tag", "step"], suffixes=("_k", "_t"))
        assert len(merged) == len(ha) > 0
        for row in merged.itertuples():
            np.testing.assert_allclose(row.edges_t, row.edges_k, rtol=1e-6, atol=1e-7)
            np.testing.assert_array_equal(row.counts_t, row.counts_k)
        # The conceptual graph: the same layers (Keras writes it at every fit and evaluate, tbkit once).
        assert ours.graphs()[["run", "tag", "kind"]].values.tolist() == [["train", "keras", "keras"]]
        their_nodes = theirs.graph_nodes().drop_duplicates(["name"])
        assert (
            ours.graph_nodes()[["name", "op"]].values.tolist() == their_nodes[["name", "op"]].values.tolist()
        )
        ia, ib = theirs.images(), ours.images()
        merged = ia.merge(ib, on=["run", "tag", "step", "index"], suffixes=("_k", "_t"))
        assert len(merged) == len(ia) > 0
        for row in merged.itertuples():
            np.testing.assert_array_equal(theirs.decode_image(row.data_t), theirs.decode_image(row.data_k))
