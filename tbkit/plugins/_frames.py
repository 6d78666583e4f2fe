"""Pandas helpers shared by the kinds' frame builders (``plugins/<kind>/frames.py``).

A leaf: pandas is imported when a frame is built, never when a kind's ``__init__`` is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tbkit.errors import MissingDependencyError

__all__ = ["pandas", "records_frame"]


def pandas() -> Any:
    """The pandas module (MissingDependencyError naming the frames when it is absent)."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is a dependency
        raise MissingDependencyError("pandas", feature="tbkit.read frames") from exc
    return pandas


def records_frame(records: list[dict[str, Any]], columns: list[str]) -> Any:
    """A frame of ``records`` with ``columns``: ``run``, ``tag`` and ``plugin`` categorical,
    ``step`` int64, ``wall_time`` float64 (the frames' conventions, as the reader's own)."""
    pd = pandas()
    frame = pd.DataFrame.from_records(records, columns=columns)
    for name in ("run", "tag", "plugin"):
        if name in frame:
            frame[name] = frame[name].astype("category")
    for name, dtype in (("step", np.int64), ("wall_time", np.float64)):
        if name in frame:
            frame[name] = frame[name].astype(dtype)
    return frame
