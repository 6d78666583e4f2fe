"""Run groups for the scalar charts: :func:`tbkit.aggregate` on full-resolution series, then downsampled.

The server groups exactly as the library does (the same function, on the same points), so
the band a chart draws equals ``tbkit.read(logdir).aggregate(...)`` at every step it shows.

* :func:`session_hparams`, :func:`hparam_names`: the runs' hyperparameters from a provider;
* :func:`group_frame`: the rows of ``aggregate`` for one tag and some runs, plus each group's members;
* :func:`group_payload`: one group's JSON answer (smoothed, cut to a step range, downsampled).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.plugins.scalars import query
from tbkit.plugins.scalars.aggregate import HPARAM_PREFIX, aggregate, group_runs
from tbkit.provider import DataProvider

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.scalars.aggregate import GroupBy

__all__ = ["group_frame", "group_payload", "hparam_names", "session_hparams"]


def session_hparams(provider: DataProvider) -> dict[str, dict[str, Any]]:
    """``{session run: {hyperparameter: value}}`` of every hparams session."""
    groups = provider.read_hyperparameters()
    return {s.run: dict(s.hparams) for g in groups for s in g.sessions}


def hparam_names(provider: DataProvider) -> list[str]:
    """The hyperparameters' names (declared or inferred), sorted."""
    names = {h.name for h in provider.list_hyperparameters().hyperparameters}
    names.update(k for values in session_hparams(provider).values() for k in values)
    return sorted(names)


def group_frame(
    provider: DataProvider,
    plugin_name: str,
    tag: str,
    runs: Iterable[str] | None,
    by: GroupBy,
    *,
    stat: str,
    band: str,
) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """``aggregate``'s rows of ``tag`` over ``runs`` (all runs with it when None), and
    ``{group: [member runs]}``, both from the provider's full-resolution series."""
    import pandas as pd

    found = query.scalar_columns(provider, plugin_name, tag, runs)
    names = sorted(found)
    hparams = session_hparams(provider) if isinstance(by, str) and by.startswith(HPARAM_PREFIX) else None
    sizes = [len(found[r][0]) for r in names]
    frame = pd.DataFrame(
        {
            "run": np.repeat(np.array(names, dtype=object), sizes),
            "tag": tag,
            "step": np.concatenate([found[r][0] for r in names]) if names else np.zeros(0, np.int64),
            "wall_time": np.concatenate([found[r][1] for r in names]) if names else np.zeros(0),
            "value": np.concatenate([found[r][2] for r in names]) if names else np.zeros(0),
        }
    )
    rows = aggregate(frame, by, stat=stat, band=band, hparams=hparams)
    members: dict[str, list[str]] = {}
    for run, group in group_runs(names, by, hparams=hparams).items():
        members.setdefault(group, []).append(run)
    return rows, members


def _indices(columns: list[np.ndarray], points: int | None) -> np.ndarray:
    """At most ``points`` indices: bucketed min/max of the line (half the budget) and of each band edge.

    ``None``: every index.
    """
    if points is None:
        return np.arange(len(columns[0]))
    budgets = [max(4, points // 2), max(4, points // 4), max(4, points // 4)]
    chosen = [query.minmax_indices(c, b) for c, b in zip(columns, budgets, strict=True)]
    return query.thin_indices(np.unique(np.concatenate(chosen)), points)


def _nullable(values: np.ndarray) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values.tolist()]


def group_payload(
    rows: pd.DataFrame,
    *,
    points: int | None,
    smoothing: float = 0.0,
    min_step: int | None = None,
    max_step: int | None = None,
) -> dict[str, Any]:
    """One group's answer: ``total``, ``in_range``, ``shown``, ``step``, ``wall_time``, ``value``,
    ``smoothed`` (the EMA of ``value``), ``lower``, ``upper``, ``count``; null where not finite."""
    steps = rows["step"].to_numpy(dtype=np.int64)
    walls = rows["wall_time"].to_numpy(dtype=np.float64)
    value = rows["value"].to_numpy(dtype=np.float64)
    lower = rows["lower"].to_numpy(dtype=np.float64)
    upper = rows["upper"].to_numpy(dtype=np.float64)
    count = rows["count"].to_numpy(dtype=np.int64)
    smoothed = query.smooth(value, smoothing)
    lo = 0 if min_step is None else int(np.searchsorted(steps, min_step, side="left"))
    hi = len(steps) if max_step is None else int(np.searchsorted(steps, max_step, side="right"))
    if hi > lo:
        keep = lo + _indices([value[lo:hi], lower[lo:hi], upper[lo:hi]], points)
    else:
        keep = np.zeros(0, dtype=np.int64)
    return {
        "total": len(steps),
        "in_range": max(0, hi - lo),
        "shown": len(keep),
        "step": steps[keep].tolist(),
        "wall_time": _nullable(walls[keep]),
        "value": _nullable(value[keep]),
        "smoothed": _nullable(smoothed[keep]),
        "lower": _nullable(lower[keep]),
        "upper": _nullable(upper[keep]),
        "count": count[keep].tolist(),
    }
