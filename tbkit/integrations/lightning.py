"""A Lightning logger writing through tbkit: ``Trainer(logger=TbkitLogger("logs"))``.

The layout is that of Lightning's ``TensorBoardLogger``: ``<save_dir>/<name>/version_<n>``
with metrics, hyperparameters (and ``hparams.yaml``) and the model graph; only global rank
zero writes. ``import tbkit`` never imports this module nor Lightning.

Example:
    >>> from tbkit.integrations.lightning import TbkitLogger  # doctest: +SKIP
    >>> trainer = lightning.Trainer(logger=TbkitLogger("logs"), max_epochs=5)  # doctest: +SKIP
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Mapping
from typing import Any

from tbkit.errors import MissingDependencyError
from tbkit.record import storage
from tbkit.writer.summary_writer import SummaryWriter

try:
    import torch
    from lightning.fabric.utilities.logger import (
        _add_prefix,
        _convert_params,
        _flatten_dict,
        _sanitize_params,
    )
    from lightning.pytorch.core.saving import save_hparams_to_yaml
    from lightning.pytorch.loggers.logger import Logger, rank_zero_experiment
    from lightning.pytorch.utilities.rank_zero import rank_zero_only, rank_zero_warn
except ImportError as exc:  # pragma: no cover - lightning is a test dependency
    raise MissingDependencyError("lightning", feature="tbkit.integrations.lightning") from exc

__all__ = ["TbkitLogger"]

_STATUS = {"success": "success", "failed": "failure", "finished": "success"}


class TbkitLogger(Logger):
    """Lightning's ``TensorBoardLogger``, written by tbkit (same arguments and layout).

    Args:
        save_dir: The directory holding the experiments.
        name: The experiment's directory under ``save_dir`` (``""`` or None: none).
        version: An int (``version_<n>``) or a directory name; default: the next free number.
        log_graph: Write the model graph (traced with ``example_input_array``) when asked.
        default_hp_metric: Log a placeholder ``hp_metric`` (-1) with the hyperparameters when
            no metric is given, so TensorBoard's HParams dashboard lists the session.
        prefix: Prepended to every metric name, joined with ``-``.
        sub_dir: A sub-directory of the version directory to write into.
        **kwargs: Passed to :class:`tbkit.SummaryWriter` (``flush_secs``, ``max_queue``, ...).

    The hparams session is left open while training runs and closed by ``finalize`` with
    Lightning's status (``success``, or ``failure`` for ``"failed"``).

    Example:
        >>> logger = TbkitLogger("logs", name="mnist", log_graph=True)  # doctest: +SKIP
        >>> Trainer(logger=logger).fit(model)  # doctest: +SKIP
    """

    LOGGER_JOIN_CHAR = "-"
    NAME_HPARAMS_FILE = "hparams.yaml"

    def __init__(
        self,
        save_dir: str,
        name: str | None = "lightning_logs",
        version: int | str | None = None,
        log_graph: bool = False,
        default_hp_metric: bool = True,
        prefix: str = "",
        sub_dir: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self._save_dir = str(save_dir)
        self._name = name or ""
        self._version = version
        self._log_graph = log_graph
        self._default_hp_metric = default_hp_metric
        self._prefix = prefix
        self._sub_dir = None if sub_dir is None else str(sub_dir)
        self._kwargs = kwargs
        self._experiment: SummaryWriter | None = None
        self._session_open = False
        self.hparams: dict[str, Any] = {}

    # -- where ---------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The experiment name."""
        return self._name

    @property
    def version(self) -> int | str:
        """The experiment version: the next free ``version_<n>`` number unless given."""
        if self._version is None:
            self._version = self._next_version()
        return self._version

    @property
    def save_dir(self) -> str:
        """The directory holding the experiments."""
        return self._save_dir

    @property
    def root_dir(self) -> str:
        """``<save_dir>/<name>``: where the versions of this experiment live."""
        return storage.join(self._save_dir, self._name) if self._name else self._save_dir

    @property
    def log_dir(self) -> str:
        """``<root_dir>/version_<n>`` (or the version's name), plus ``sub_dir``: the run written."""
        version = self.version if isinstance(self.version, str) else f"version_{self.version}"
        path = storage.join(self.root_dir, version)
        return storage.join(path, self._sub_dir) if self._sub_dir else path

    def _next_version(self) -> int:
        if not storage.exists(self.root_dir):
            return 0
        entries = storage.listdir(self.root_dir)
        numbers = [
            int(name[len("version_") :])
            for name, is_dir in entries
            if is_dir and name.startswith("version_") and name[len("version_") :].isdigit()
        ]
        return max(numbers) + 1 if numbers else 0

    @property
    @rank_zero_experiment
    def experiment(self) -> SummaryWriter:
        """The :class:`tbkit.SummaryWriter` of ``log_dir`` (created on first use, rank zero only)."""
        if self._experiment is None:
            self._experiment = SummaryWriter(self.log_dir, rank=0, **self._kwargs)
        return self._experiment

    # -- what ----------------------------------------------------------------------------

    @rank_zero_only
    def log_metrics(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
        """Log each metric as a scalar (a dict value: ``add_scalars``, one sub-run per key)."""
        for key, value in _add_prefix(dict(metrics), self._prefix, self.LOGGER_JOIN_CHAR).items():
            if isinstance(value, torch.Tensor):
                value = value.item()
            if isinstance(value, Mapping):
                self.experiment.add_scalars(key, value, step)
            else:
                self.experiment.add_scalar(key, value, step)

    @rank_zero_only
    def log_hyperparams(
        self,
        params: dict[str, Any] | Namespace,
        metrics: Mapping[str, Any] | float | None = None,
        step: int | None = None,
    ) -> None:
        """Record hyperparameters (nested dicts flattened with ``/``) and optional metrics."""
        params = _convert_params(params)
        self.hparams.update(params)
        flat = _sanitize_params(_flatten_dict(params))
        flat = {k: str(v) if hasattr(v, "ndim") and v.ndim > 1 else v for k, v in flat.items()}
        flat = {
            k: v if isinstance(v, bool | int | float | str) or v is None else str(v) for k, v in flat.items()
        }
        if metrics is None:
            metrics = {"hp_metric": -1} if self._default_hp_metric else {}
        elif not isinstance(metrics, Mapping):
            metrics = {"hp_metric": metrics}
        metrics = {k: v.item() if isinstance(v, torch.Tensor) else v for k, v in metrics.items()}
        if metrics or flat:
            self.experiment.add_hparams(flat, metrics, global_step=step, status=None)
            self._session_open = True

    @rank_zero_only
    def log_graph(self, model: Any, input_array: Any = None) -> None:
        """Write the model's op graph, traced with ``input_array`` or ``model.example_input_array``."""
        if not self._log_graph:
            return
        if input_array is None:
            input_array = getattr(model, "example_input_array", None)
        if not isinstance(input_array, torch.Tensor | tuple):
            rank_zero_warn(
                "the graph was not logged: set model.example_input_array or pass input_array "
                "(a tensor or a tuple of forward's positional arguments)"
            )
            return
        if hasattr(model, "_apply_batch_transfer_handler"):  # a LightningModule: to its device
            input_array = model._apply_batch_transfer_handler(model._on_before_batch_transfer(input_array))
        self.experiment.add_graph(model, input_array)

    @rank_zero_only
    def save(self) -> None:
        """Flush the writer; write ``hparams.yaml`` into ``log_dir`` if it is not there yet."""
        if self._experiment is not None:
            self._experiment.flush()
        path = storage.join(self.log_dir, self.NAME_HPARAMS_FILE)
        if storage.exists(self.log_dir) and not storage.exists(path):
            save_hparams_to_yaml(path, self.hparams)

    @rank_zero_only
    def finalize(self, status: str) -> None:
        """Close the hparams session with ``status``, save, and close the writer."""
        if self._experiment is None:
            return
        if self._session_open:
            self._experiment.end_hparams_session(_STATUS.get(status, "unknown"))
            self._session_open = False
        self.save()
        self._experiment.close()
        self._experiment = None

    def after_save_checkpoint(self, checkpoint_callback: Any) -> None:
        """Nothing to do: checkpoints are not logged."""

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_experiment"] = None  # a writer (a thread, an open file) does not pickle
        return state
