"""Keras 3 callbacks: ``TensorBoard`` (Keras's own callback, without TensorFlow) and ``HParams``.

Works on every Keras backend (JAX, PyTorch, TensorFlow): values are read through
``keras.ops``, files are written by :class:`tbkit.SummaryWriter`. ``import tbkit`` never
imports this module nor Keras; ``import tbkit.keras`` does both.

Example:
    >>> import tbkit.keras  # doctest: +SKIP
    >>> model.fit(x, y, validation_split=0.2, callbacks=[tbkit.keras.TensorBoard("logs")])  # doctest: +SKIP
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tbkit.errors import MissingDependencyError
from tbkit.plugins.histograms.summary import equal_width_buckets, histogram_pb
from tbkit.plugins.images.convert import encode_png
from tbkit.plugins.images.summary import image_pb
from tbkit.record import storage
from tbkit.writer.summary_writer import SummaryWriter

try:
    import keras
except ImportError as exc:  # pragma: no cover - keras is a test dependency
    raise MissingDependencyError("keras", feature="tbkit.keras") from exc

__all__ = ["HParams", "TensorBoard"]

_CONCEPTUAL_GRAPH_CLASSES = ("Functional", "Sequential")  # the models Keras's callback draws


def _to_numpy(value: Any) -> np.ndarray:
    return np.asarray(keras.ops.convert_to_numpy(value))


def _weight_image(weight: np.ndarray) -> np.ndarray | None:
    """A weight as ``[n, h, w, c]`` images, laid out as Keras's callback does; None if it draws none."""
    image = np.squeeze(weight)
    if image.ndim == 1:  # a bias: one column
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:  # a dense kernel, the longer side across
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif image.ndim == 3:  # a 1-D convolution kernel: one image per output channel
        if keras.config.image_data_format() == "channels_last":
            image = np.transpose(image, (2, 0, 1))
        image = image.reshape(image.shape[0], image.shape[1], image.shape[2], 1)
    if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
        return image
    return None


def _image_bytes(images: np.ndarray, max_outputs: int = 3) -> list[bytes]:
    """PNGs of the first ``max_outputs`` float images, converted as ``tf.summary.image`` does."""
    pixels = np.clip(np.asarray(images[:max_outputs], dtype=np.float64) * 255.5, 0, 255).astype(np.uint8)
    return [encode_png(image) for image in pixels]


class TensorBoard(keras.callbacks.Callback):
    """Keras's ``keras.callbacks.TensorBoard``, written by tbkit: same arguments, same layout.

    Runs ``<log_dir>/train`` and ``<log_dir>/validation``. Per epoch (step = epoch index):
    ``epoch_<metric>`` for each training metric plus ``epoch_learning_rate`` in ``train``,
    and each ``val_<metric>`` as ``epoch_<metric>`` in ``validation``. With an integer
    ``update_freq`` (or ``"batch"`` = 1), ``batch_<metric>`` in ``train`` every that many
    batches (step = batch count since ``fit`` began, from 1). After each evaluation,
    ``evaluation_<metric>_vs_iterations`` in ``validation`` at the optimizer's iteration count.
    ``histogram_freq``: ``<weight path>/histogram`` in ``train`` every that many epochs (and
    ``<weight path>/image`` with ``write_images``). ``write_graph``: the conceptual graph
    (tag ``keras``, step 0) of Sequential and functional models. ``write_steps_per_second``:
    ``epoch_steps_per_second`` and ``batch_steps_per_second``.

    Keras's ``model.to_json()``, which the graph needs, imports TensorFlow when it is
    installed (on any backend): pass ``write_graph=False`` to spare that import.

    Differences from Keras's callback: no TensorFlow needed, on any backend; epoch metrics are
    written at every epoch even with an integer ``update_freq`` (Keras's own drops those of
    epochs whose last batch count is not a multiple of it); ``embeddings_freq`` writes the
    embedding matrices with ``add_embedding`` into ``train`` (the projector reads them there)
    instead of a weights checkpoint; ``profile_batch`` must be 0 (use :mod:`tbkit.profiler`
    or your backend's profiler); TensorFlow's op graph of the train function is not written.

    Args:
        log_dir: The directory of the two runs.
        histogram_freq: Log weight histograms every this many epochs (0: never).
        write_graph: Log the model's conceptual graph.
        write_images: With ``histogram_freq``, also log the weights as images.
        write_steps_per_second: Log the training speed.
        update_freq: ``"epoch"``, ``"batch"`` or an int: log batch metrics every that many batches.
        profile_batch: Accepted for compatibility; must be 0.
        embeddings_freq: Log the ``Embedding`` layers' matrices every this many epochs.
        embeddings_metadata: A labels file (one label per line; a header line if it holds
            tabs) for every embedding layer, or a dict of such files by layer name.
        rank: Passed to ``SummaryWriter``: on a non-zero rank nothing is written.

    Example:
        >>> cb = TensorBoard("logs", histogram_freq=1, update_freq=100)  # doctest: +SKIP
        >>> model.fit(x, y, epochs=5, validation_split=0.1, callbacks=[cb])  # doctest: +SKIP
    """

    def __init__(
        self,
        log_dir: str = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: str | int = "epoch",
        profile_batch: int | Sequence[int] = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: str | Mapping[str, str] | None = None,
        *,
        rank: int | None = None,
    ) -> None:
        super().__init__()
        if profile_batch not in (0, (0, 0), [0, 0], "0", "0,0", None):
            raise ValueError(
                "tbkit.keras.TensorBoard does not profile (profile_batch must be 0): "
                "use tbkit.profiler for torch.profiler traces, or your backend's profiler"
            )
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (
            isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq < 1
        ):
            raise ValueError(f"update_freq must be 'epoch', 'batch' or a positive int, got {update_freq!r}")
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._rank = rank
        self._writers: dict[str, SummaryWriter] = {}
        self._graphs_written: set[int] = set()
        self._global_train_batch = 0
        self._batch_start = 0.0
        self._epoch_start = 0.0
        self._epoch_start_iterations = 0.0

    # -- writers -------------------------------------------------------------------------

    def _writer(self, run: str) -> SummaryWriter:
        writer = self._writers.get(run)
        if writer is None:
            writer = SummaryWriter(storage.join(self.log_dir, run), rank=self._rank)
            self._writers[run] = writer
        return writer

    def _close_writers(self) -> None:
        writers, self._writers = self._writers, {}
        for writer in writers.values():
            writer.close()

    def set_model(self, model: Any) -> None:
        """Keep the model; write its conceptual graph once (Sequential and functional models)."""
        super().set_model(model)
        if (
            self.write_graph
            and id(model) not in self._graphs_written
            and type(model).__name__ in _CONCEPTUAL_GRAPH_CLASSES
        ):
            self._graphs_written.add(id(model))
            try:
                self._writer("train").add_keras_model(model, step=0)
            except Exception as exc:  # Keras's callback also carries on without the graph
                warnings.warn(f"the model's graph was not written: {exc}", stacklevel=2)

    # -- training ------------------------------------------------------------------------

    def on_train_begin(self, logs: Mapping[str, Any] | None = None) -> None:
        self._global_train_batch = 0

    def on_train_end(self, logs: Mapping[str, Any] | None = None) -> None:
        self._close_writers()

    def on_train_batch_begin(self, batch: int, logs: Mapping[str, Any] | None = None) -> None:
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start = time.time()

    def on_train_batch_end(self, batch: int, logs: Mapping[str, Any] | None = None) -> None:
        step = self._global_train_batch
        if self.update_freq == "epoch" or step % self.update_freq:
            return
        writer = self._writer("train")
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start
            if elapsed > 0:
                writer.add_scalar("batch_steps_per_second", 1.0 / elapsed, step, new_style=True)
        for name, value in (logs or {}).items():
            writer.add_scalar(f"batch_{name}", value, step, new_style=True)

    def on_epoch_begin(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        if self.write_steps_per_second:
            self._epoch_start_iterations = self._iterations() or 0.0
            self._epoch_start = time.time()

    def on_epoch_end(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if logs:
            train.update(self._learning_rates())
            if self.write_steps_per_second:
                elapsed = time.time() - self._epoch_start
                iterations = (self._iterations() or 0.0) - self._epoch_start_iterations
                train["steps_per_second"] = iterations / elapsed if elapsed > 0 else 0.0
        for run, values in (("train", train), ("validation", val)):
            if values:
                writer = self._writer(run)
                for name, value in values.items():
                    writer.add_scalar(f"epoch_{name}", value, epoch, new_style=True)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)

    def on_test_end(self, logs: Mapping[str, Any] | None = None) -> None:
        iterations = self._iterations()
        if iterations is None or not logs:
            return
        writer = self._writer("validation")
        for name, value in logs.items():
            writer.add_scalar(f"evaluation_{name}_vs_iterations", value, int(iterations), new_style=True)
        writer.flush()

    # -- what is logged ------------------------------------------------------------------

    def _iterations(self) -> float | None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "iterations"):
            return None
        return float(_to_numpy(optimizer.iterations))

    def _learning_rates(self) -> dict[str, float]:
        optimizer = getattr(self.model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer
        if hasattr(optimizer, "optimizers"):
            return {
                f"learning_rate_{o.name}": float(_to_numpy(o.learning_rate)) for o in optimizer.optimizers
            }
        if isinstance(optimizer, keras.optimizers.Optimizer):
            return {"learning_rate": float(_to_numpy(optimizer.learning_rate))}
        return {}

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")
                values = _to_numpy(weight)
                # TensorFlow 2's form, as Keras's own callback writes it (not torch's add_histogram)
                writer.add_summary(histogram_pb(f"{name}/histogram", equal_width_buckets(values)), epoch)
                if self.write_images:
                    images = _weight_image(values)
                    if images is not None:
                        pngs = _image_bytes(images)
                        height, width = images.shape[1:3]
                        writer.add_summary(image_pb(f"{name}/image", pngs, width=width, height=height), epoch)
        writer.flush()

    def _log_embeddings(self, epoch: int) -> None:
        for layer in self.model.layers:
            if not isinstance(layer, keras.layers.Embedding):
                continue
            labels, header = self._metadata(layer.name)
            matrix = _to_numpy(layer.embeddings)
            self._writer("train").add_embedding(
                matrix, metadata=labels, global_step=epoch, tag=layer.name, metadata_header=header
            )

    def _metadata(self, layer_name: str) -> tuple[list[Any] | None, list[str] | None]:
        source = self.embeddings_metadata
        path = source if isinstance(source, str) else (source or {}).get(layer_name)
        if not path:
            return None, None
        lines = storage.read_bytes(str(path)).decode("utf-8").splitlines()
        if lines and "\t" in lines[0]:
            return [line.split("\t") for line in lines[1:]], lines[0].split("\t")
        return lines, None


class HParams(keras.callbacks.Callback):
    """Record a trial's hyperparameters and final metrics for TensorBoard's HParams dashboard.

    When ``fit`` ends, the session (hyperparameters, status ``success``) and the last epoch's
    metrics (Keras's names: ``loss``, ``val_loss``, ...) are written into the run
    ``log_dir`` with ``SummaryWriter.add_hparams``, the metrics as scalars at the last epoch.
    Use one ``log_dir`` per trial, the same one as the trial's ``TensorBoard`` callback
    (whose runs are its ``train`` and ``validation`` sub-directories).

    Args:
        log_dir: The trial's run directory.
        hparams: Name to value (bool, int, float or str).
        metrics: The log names to record; default: every metric of the last epoch.
        hparam_domain_discrete: Name to the list of values that hyperparameter can take.
        rank: Passed to ``SummaryWriter``: on a non-zero rank nothing is written.

    Example:
        >>> callbacks = [TensorBoard("logs/trial-3"), HParams("logs/trial-3", {"lr": 1e-3, "units": 64})]
        >>> model.fit(x, y, validation_split=0.2, callbacks=callbacks)  # doctest: +SKIP
    """

    def __init__(
        self,
        log_dir: str,
        hparams: Mapping[str, Any],
        *,
        metrics: Sequence[str] | None = None,
        hparam_domain_discrete: Mapping[str, Sequence[Any]] | None = None,
        rank: int | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(hparams, Mapping):
            raise TypeError(f"hparams must be a mapping, got {type(hparams).__name__}")
        self.log_dir = str(log_dir)
        self.hparams = dict(hparams)
        self.metrics = None if metrics is None else list(metrics)
        self.hparam_domain_discrete = hparam_domain_discrete
        self._rank = rank
        self._last: tuple[int, dict[str, Any]] | None = None

    def on_epoch_end(self, epoch: int, logs: Mapping[str, Any] | None = None) -> None:
        self._last = (epoch, dict(logs or {}))

    def on_train_end(self, logs: Mapping[str, Any] | None = None) -> None:
        epoch, last = self._last if self._last is not None else (0, dict(logs or {}))
        wanted = last if self.metrics is None else {k: last[k] for k in self.metrics if k in last}
        final = {name: float(_to_numpy(value)) for name, value in wanted.items()}
        with SummaryWriter(self.log_dir, rank=self._rank) as writer:
            writer.add_hparams(self.hparams, final, self.hparam_domain_discrete, global_step=epoch)
