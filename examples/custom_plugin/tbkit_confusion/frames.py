"""The frame of the kind: ``tbkit.read(logdir).frame("confusion")``, built on the DataProvider."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin
    from tbkit.provider import DataProvider

__all__ = ["COLUMNS", "accuracy", "confusion_frame"]

COLUMNS = ("run", "tag", "step", "wall_time", "matrix", "accuracy")


def accuracy(matrix: np.ndarray) -> float:
    """The share of counts on the diagonal (NaN for an empty matrix)."""
    total = matrix.sum()
    return float(np.trace(matrix) / total) if total else float("nan")


def confusion_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """run, tag, step, wall_time, matrix (int64 ndarray), accuracy (float64): every point of every series."""
    import pandas as pd

    rows = []
    for run, series in sorted(provider.read_tensors(plugin.name, downsample=None).items()):
        for tag, points in sorted(series.items()):
            for point in points:
                matrix = np.asarray(point.numpy)
                rows.append((run, tag, point.step, point.wall_time, matrix, accuracy(matrix)))
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(COLUMNS)
    return pd.DataFrame(
        {
            "run": pd.Categorical(columns[0]),
            "tag": pd.Categorical(columns[1]),
            "step": np.asarray(columns[2], dtype=np.int64),
            "wall_time": np.asarray(columns[3], dtype=np.float64),
            "matrix": pd.Series(list(columns[4]), dtype=object),
            "accuracy": np.asarray(columns[5], dtype=np.float64),
        }
    )
