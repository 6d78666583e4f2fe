"""The hparams frame: one row per session, from the provider's hparams queries."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.plugins._frames import pandas
from tbkit.provider import DataProvider, HParamsSession, SessionStatus

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin

__all__ = ["hparams_frame"]


def _column(values: list[Any]) -> Any:
    """A column for hyperparameter values (None where missing), typed by what is present."""
    pd = pandas()
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return pd.array(values, dtype="boolean")
    if kinds <= {float, int}:
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    if kinds == {str}:
        return pd.array(values, dtype="string")
    return pd.array([pd.NA if v is None else v for v in values], dtype=object)


def hparams_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """One row per session: run, group, status, start_time, end_time, one column per
    hyperparameter (float64, nullable boolean or string; NA where a session lacks it), then
    one float64 column per metric (``group/tag``; NaN where missing) holding its last value.

    A metric whose name equals a hyperparameter's (or a fixed column's) is named
    ``metric/<name>``. The builder of the ``"hparams"`` frame (``plugin``: the hparams
    plugin; its sessions come from the provider's hparams queries).
    """
    pd = pandas()
    experiment = provider.list_hyperparameters()
    groups = provider.read_hyperparameters()
    sessions: list[HParamsSession] = sorted((s for g in groups for s in g.sessions), key=lambda s: s.run)
    names = sorted({h.name for h in experiment.hyperparameters} | {k for s in sessions for k in s.hparams})
    fixed = ["run", "group", "status", "start_time", "end_time"]
    data: dict[str, Any] = {
        "run": pd.Categorical([s.run for s in sessions]),
        "group": pd.array([s.group for s in sessions], dtype="string"),
        "status": pd.Categorical(
            [s.status.value for s in sessions], categories=[v.value for v in SessionStatus]
        ),
        "start_time": np.array(
            [math.nan if s.start_time_secs is None else s.start_time_secs for s in sessions]
        ),
        "end_time": np.array([math.nan if s.end_time_secs is None else s.end_time_secs for s in sessions]),
    }
    for name in names:
        data[name if name not in fixed else f"hparam/{name}"] = _column(
            [s.hparams.get(name) for s in sessions]
        )
    for metric in experiment.metrics:
        column = metric.name if metric.name not in data else f"metric/{metric.name}"
        values = []
        for s in sessions:
            found = [m.value for m in s.metrics if (m.group, m.tag) == (metric.group, metric.tag)]
            values.append(found[0] if found else math.nan)
        data[column] = np.array(values, dtype=np.float64)
    return pd.DataFrame(data)
