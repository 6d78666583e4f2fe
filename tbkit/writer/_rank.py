"""Distributed training: which process writes.

``SummaryWriter(log_dir)`` in a job of several processes writes from rank 0 only; every
other rank gets a :class:`~tbkit.writer.summary_writer.NullSummaryWriter`, which accepts
every call and writes nothing.
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

from tbkit.record import storage

__all__ = ["rank_log_dir", "resolve_rank"]

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
