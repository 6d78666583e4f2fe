"""Distributed training: which process writes, and the null writer the others get.

``SummaryWriter(log_dir)`` in a job of several processes writes from rank 0 only; every
other rank gets a :class:`NullSummaryWriter`, which accepts every call and writes nothing.
``SummaryWriter(log_dir, per_rank=True)`` instead lets every rank write its own run,
``<log_dir>/rank<k>``.

The rank is, in this order: the ``rank`` argument; ``torch.distributed.get_rank()`` when a
process group is initialised (looked up only if the program already imported
``torch.distributed``); the ``RANK`` environment variable (set by ``torchrun``, DeepSpeed,
Accelerate, ``horovodrun``'s gloo launcher); ``LOCAL_RANK``; else 0.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tbkit.record import storage
from tbkit.writer.summary_writer import SummaryWriter, default_logdir

_RANK_VARIABLES = ("RANK", "LOCAL_RANK")


def _torch_rank() -> int | None:
    dist = sys.modules.get("torch.distributed")
    if dist is None:
        return None
    try:
        if dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except (RuntimeError, ValueError):  # a half-torn-down process group
        return None
    return None


def resolve_rank(rank: int | None = None) -> int:
    """The rank of this process: ``rank`` if given, else what the launcher says, else 0.

    Example:
        >>> resolve_rank(3)
        3
    """
    if rank is not None:
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise ValueError(f"rank must be a non-negative int or None, got {rank!r}")
        return rank
    found = _torch_rank()
    if found is not None:
        return found
    for name in _RANK_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return 0


def rank_log_dir(log_dir: str, rank: int) -> str:
    """``<log_dir>/rank<rank>``: the run of one rank when every rank writes."""
    return storage.join(log_dir, f"rank{rank}")


def _ignore(self: Any, *args: Any, **kwargs: Any) -> None:
    return None


class NullSummaryWriter(SummaryWriter):
    """The writer of a rank that does not write: every method is accepted and does nothing.

    It creates no directory, no file and no thread. ``log_dir`` and ``rank`` are set as
    for a real writer, so code that builds paths from ``get_logdir()`` still works.
    ``SummaryWriter(...)`` returns one on a non-zero rank unless ``per_rank=True``.

    Example:
        >>> w = SummaryWriter("runs/exp", rank=1)
        >>> type(w).__name__, w.get_logdir()
        ('NullSummaryWriter', 'runs/exp')
        >>> w.add_scalar("loss", 0.5, 1)  # nothing is written
    """

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        *args: Any,
        rank: int | None = None,
        per_rank: bool = False,
        logdir: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.rank = resolve_rank(rank)
        log_dir = log_dir if log_dir is not None else logdir
        log_dir = default_logdir(comment) if log_dir is None else str(log_dir)
        self.log_dir = rank_log_dir(log_dir, self.rank) if per_rank else log_dir
        self._sub_writers = {}

    @property
    def file_writer(self) -> Any:
        """A file writer that writes nothing (tensorboardX's ``DummyFileWriter``)."""
        return NullFileWriter(self.log_dir)

    @property
    def all_writers(self) -> dict[str, Any]:
        """This writer's one null file writer, by directory."""
        return {self.log_dir: self.file_writer}

    def _get_file_writer(self) -> Any:
        return self.file_writer

    def export_scalars_to_json(self, path: str) -> None:
        """Write ``{}``: this writer logged nothing."""
        with open(path, "w", encoding="utf-8") as file:
            file.write("{}")


class NullFileWriter:
    """torch's ``FileWriter`` methods, each accepting its arguments and writing nothing."""

    def __init__(self, log_dir: str) -> None:
        self._log_dir = log_dir

    def get_logdir(self) -> str:
        """The directory it would write to."""
        return self._log_dir

    add_event = add_summary = add_graph = add_onnx_graph = flush = close = reopen = _ignore


# Every method that would write (add_*, flush, close, ...) does nothing: a method added to
# SummaryWriter later is covered without a change here (tests/writer/test_rank.py checks).
for _name in dir(SummaryWriter):
    if _name.startswith("add_") or _name in ("flush", "close", "end_hparams_session", "_add", "_check_open"):
        setattr(NullSummaryWriter, _name, _ignore)
del _name
