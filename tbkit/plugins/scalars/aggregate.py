"""Run groups: the runs of a scalars frame grouped and reduced to one line with a band per group.

A group is made of runs chosen by a regex capture on their names (``r"(.*)_seed\\d+"``), by
a hyperparameter's value (``"hparam:lr"``), or by an explicit ``{run: group}`` mapping.
For each group, tag and step, the members that have that step give the statistic (mean or
median) and the band (the statistic ± the standard deviation, or the minimum and maximum).
The same function serves ``tbkit.read(logdir).aggregate(...)``, ``tbkit export --group-by``
and the UI's grouped charts, so a notebook and the page show the same numbers.

Example:
    >>> import pandas as pd
    >>> df = pd.DataFrame({"run": ["a_seed0", "a_seed1"], "tag": ["loss", "loss"],
    ...                    "step": [0, 0], "wall_time": [1.0, 2.0], "value": [1.0, 3.0]})
    >>> aggregate(df, by=r"(.*)_seed\\d+")[["group", "value", "lower", "upper", "count"]].values.tolist()
    [['a', 2.0, 0.5857864376269049, 3.414213562373095, 2]]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.errors import InvalidArgumentError

if TYPE_CHECKING:
    from typing import TypeAlias

    import pandas as pd

    from tbkit.plugins.patterns import ClientPattern

    # A regex (one capture group names the group; as text or compiled), "hparam:NAME",
    # {run: group}, or run -> group.
    GroupBy: TypeAlias = (
        str | re.Pattern[str] | ClientPattern | Mapping[str, str] | Callable[[str], str | None]
    )
    HParams: TypeAlias = pd.DataFrame | Mapping[str, Mapping[str, Any]]

__all__ = ["BANDS", "COLUMNS", "HPARAM_PREFIX", "STATS", "aggregate", "group_runs"]

STATS = ("mean", "median")
BANDS = ("std", "minmax")
HPARAM_PREFIX = "hparam:"
COLUMNS = ["group", "tag", "step", "wall_time", "value", "lower", "upper", "count"]

_FIXED = {"run", "group", "status", "start_time", "end_time"}  # hparams() columns that are not hparams


def _label(value: Any) -> str:
    """A hyperparameter value as a group name: ``0.1``, ``2``, ``true``, ``adam``."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)
    return str(value)


def _missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _session_values(hparams: HParams, name: str) -> dict[str, Any]:
    """``{session run: value of name}`` from ``Logdir.hparams()`` or a ``{run: {name: value}}`` mapping."""
    if isinstance(hparams, Mapping):
        found = {str(run): values[name] for run, values in hparams.items() if name in values}
        if not found:
            known = sorted({str(k) for values in hparams.values() for k in values})
            raise InvalidArgumentError(f"no hyperparameter {name!r}; known: {', '.join(known) or 'none'}")
        return found
    column = f"hparam/{name}" if name in _FIXED else name
    if column not in hparams.columns:
        known = [c for c in hparams.columns if c not in _FIXED and "/" not in str(c)]
        raise InvalidArgumentError(
            f"no hyperparameter {name!r}; known: {', '.join(map(str, known)) or 'none'}"
        )
    return dict(zip(hparams["run"].astype(str).tolist(), hparams[column].tolist(), strict=True))


def _hparam_of(run: str, sessions: Mapping[str, Any]) -> Any:
    """The value of the session ``run`` belongs to: its own, the nearest enclosing session's
    (``run`` under ``session/``), or the one value of the sessions under ``run/``."""
    if run in sessions:
        return sessions[run]
    parents = [s for s in sessions if run.startswith(s + "/")]
    if parents:
        return sessions[max(parents, key=len)]
    children = {_label(v) for s, v in sessions.items() if s.startswith(run + "/") and not _missing(v)}
    if len(children) == 1:
        return next(v for s, v in sessions.items() if s.startswith(run + "/") and not _missing(v))
    return None


def group_runs(
    runs: Iterable[str], by: GroupBy, *, hparams: HParams | None = None, keep_ungrouped: bool = True
) -> dict[str, str]:
    """``{run: group}`` for ``runs`` grouped ``by`` a regex, ``"hparam:NAME"``, a mapping or a function.

    Args:
        runs: Run names.
        by: A regular expression (text, or compiled: an ``re.Pattern`` or a server-side
            :class:`~tbkit.plugins.patterns.ClientPattern`) searched in each run name, whose
            first capture group (or whole match, without groups) names the group;
            ``"hparam:NAME"``, grouping by the value of hyperparameter ``NAME`` (group
            ``NAME=value``; needs ``hparams``); a
            ``{run: group}`` mapping; or a function of the run name returning its group (or None).
        hparams: ``Logdir.hparams()``, or ``{session run: {name: value}}``. A run takes the
            value of its own session, else of the nearest session it is under, else the one
            value of the sessions under it.
        keep_ungrouped: A run that no group takes forms a group of its own, named after the
            run (False: it is left out).

    Raises:
        InvalidArgumentError: A bad regex, an unknown hyperparameter, or ``hparams`` missing.

    Example:
        >>> group_runs(["a_seed0", "a_seed1", "b_seed0", "c"], r"(.*)_seed\\d+")
        {'a_seed0': 'a', 'a_seed1': 'a', 'b_seed0': 'b', 'c': 'c'}
    """
    names = [str(r) for r in runs]
    found: dict[str, str | None]
    if isinstance(by, str) and by.startswith(HPARAM_PREFIX):
        name = by[len(HPARAM_PREFIX) :]
        if not name:
            raise InvalidArgumentError("hparam grouping needs a name: 'hparam:NAME'")
        if hparams is None:
            raise InvalidArgumentError(f"grouping by {by!r} needs the runs' hyperparameters")
        sessions = _session_values(hparams, name)
        found = {}
        for run in names:
            value = _hparam_of(run, sessions)
            found[run] = None if _missing(value) else f"{name}={_label(value)}"
    elif isinstance(by, str) or hasattr(by, "search"):
        pattern: Any = by
        if isinstance(by, str):
            try:
                pattern = re.compile(by)
            except re.error as exc:
                raise InvalidArgumentError(f"group regex {by!r} is not valid: {exc}") from None
        found = {}
        for run in names:
            match = pattern.search(run)
            found[run] = None if match is None else (match.group(1) if pattern.groups else match.group(0))
            if found[run] is None and match is not None:  # an optional group that did not take part
                found[run] = ""
    elif isinstance(by, Mapping):
        found = {run: (None if by.get(run) in (None, "") else str(by[run])) for run in names}
    elif callable(by):
        found = {run: by(run) for run in names}
    else:
        raise InvalidArgumentError(f"by must be a regex, 'hparam:NAME', a mapping or a function, got {by!r}")
    out: dict[str, str] = {}
    for run, group in found.items():
        if group is not None:
            out[run] = str(group)
        elif keep_ungrouped:
            out[run] = run
    return out


def aggregate(
    scalars: pd.DataFrame,
    by: GroupBy,
    *,
    stat: str = "mean",
    band: str = "std",
    hparams: HParams | None = None,
    keep_ungrouped: bool = True,
) -> pd.DataFrame:
    """Each group's line and band per tag, aligned by step.

    The steps of a group are the union of its members' steps (an outer join); a step's
    statistics use the members that have a finite value there (``count`` of them). A
    (run, tag, step) written more than once keeps its last value; NaN and ±inf are left
    out of the statistics.

    Args:
        scalars: A frame with ``run``, ``tag``, ``step``, ``value`` (and ``wall_time``),
            e.g. ``tbkit.read(logdir).scalars()``; works with ``DataFrame.pipe``.
        by: How to group runs: see :func:`group_runs`.
        stat: ``"mean"`` or ``"median"``: the line.
        band: ``"std"``: the line ± the standard deviation (pandas' ``std``, ``ddof=1``;
            0 for a single member); ``"minmax"``: the members' minimum and maximum.
        hparams: For ``by="hparam:NAME"``: ``Logdir.hparams()`` or ``{run: {name: value}}``.
        keep_ungrouped: See :func:`group_runs`.

    Returns:
        group, tag (categorical), step (int64), wall_time (the members' mean), value,
        lower, upper (float64, NaN where ``count`` is 0), count (int64), ordered by group,
        tag and step.

    Raises:
        InvalidArgumentError: An unknown ``stat`` or ``band``, or a bad ``by``.

    Example:
        >>> ld = tbkit.read("runs")  # doctest: +SKIP
        >>> ld.scalars().pipe(tbkit.aggregate, by=r"(.*)_seed\\d+", band="minmax")  # doctest: +SKIP
    """
    import pandas as pd

    if stat not in STATS:
        raise InvalidArgumentError(f"stat must be one of {', '.join(STATS)}, got {stat!r}")
    if band not in BANDS:
        raise InvalidArgumentError(f"band must be one of {', '.join(BANDS)}, got {band!r}")
    missing = {"run", "tag", "step", "value"} - set(scalars.columns)
    if missing:
        raise InvalidArgumentError(f"the scalars frame lacks column(s) {', '.join(sorted(missing))}")
    runs = pd.unique(scalars["run"].astype(str)).tolist() if len(scalars) else []
    groups = group_runs(runs, by, hparams=hparams, keep_ungrouped=keep_ungrouped)
    frame = pd.DataFrame(
        {
            "group": scalars["run"].astype(str).map(groups),
            "run": scalars["run"].astype(str),
            "tag": scalars["tag"].astype(str),
            "step": scalars["step"].astype(np.int64),
            "wall_time": (
                scalars["wall_time"].astype(np.float64)
                if "wall_time" in scalars.columns
                else np.full(len(scalars), math.nan)
            ),
            "value": scalars["value"].astype(np.float64),
        }
    )
    frame = frame[frame["group"].notna()]
    frame = frame.drop_duplicates(["run", "tag", "step"], keep="last")
    values = frame["value"].to_numpy()
    frame["value"] = np.where(np.isfinite(values), values, np.nan)
    keys = ["group", "tag", "step"]
    grouped = frame.groupby(keys, sort=True)["value"]
    out = pd.DataFrame(
        {
            "wall_time": frame.groupby(keys, sort=True)["wall_time"].mean(),
            "value": grouped.mean() if stat == "mean" else grouped.median(),
            "count": grouped.count().astype(np.int64),
        }
    )
    if band == "std":
        spread = grouped.std(ddof=1).to_numpy()
        spread = np.where(out["count"].to_numpy() == 1, 0.0, spread)
        out["lower"] = out["value"].to_numpy() - spread
        out["upper"] = out["value"].to_numpy() + spread
    else:
        out["lower"] = grouped.min()
        out["upper"] = grouped.max()
    out = out.reset_index()
    out["tag"] = pd.Categorical(out["tag"], categories=sorted(set(out["tag"])))
    out["group"] = out["group"].astype(object)
    for name in ("value", "lower", "upper", "wall_time"):
        out[name] = out[name].astype(np.float64)
    return out[COLUMNS].reset_index(drop=True)
