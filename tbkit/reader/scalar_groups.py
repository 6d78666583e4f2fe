"""The fast path's bulk apply: the scalars of many tags of one window at once.

The loader sorts a window's fast-path scalars by tag once and hands each tag its slice of
that order (:func:`apply_scalar_groups`). A tag whose rows only extend a scalar series is
appended to it here as one block; anything that needs the per-tag rules (a new series of
another kind, a refused series, a step going back in a legacy file) goes through
:meth:`~tbkit.reader.events.RunData.apply_scalars`, so both give the same run.
"""

from __future__ import annotations

import numpy as np

from tbkit.provider import DataClass
from tbkit.reader.events import FileState, RunData
from tbkit.reader.series import SeriesData, SeriesMeta

__all__ = ["apply_scalar_groups"]


def apply_scalar_groups(
    run: RunData,
    tags: list[str],
    kinds: np.ndarray,
    steps: np.ndarray,
    walls: np.ndarray,
    values: np.ndarray,
    bounds: list[int],
    state: FileState,
    at: np.ndarray | None = None,
    order: np.ndarray | None = None,
) -> None:
    """Apply the scalars of several tags to ``run`` at once, as its ``apply_scalars`` would
    tag by tag.

    Tag ``tags[k]`` has rows ``order[bounds[k]:bounds[k + 1]]`` of the columns (and of
    ``at``), each tag's rows in the order read; without ``order``, rows
    ``bounds[k]:bounds[k + 1]``. A tag whose rows are only appended to a scalar series is
    done here (each series gets its own copy of its rows, taken straight from the columns:
    they are never gathered whole); one that needs more (a new series of another kind, a
    refused series, a step going back in a file without ``file_version``) takes
    :meth:`~tbkit.reader.events.RunData.apply_scalars`.
    """
    if not tags:
        return
    if order is None:
        order = np.arange(len(steps))
    run.generation += 1
    if run.start_time is None:
        run.start_time = float(walls[order[0]])
    firsts = order[bounds[:-1]]
    ordered = state.modern or not run.purge_orphaned_data  # else a step going back purges
    backward: set[int] = set()
    first_steps: list[int] = []
    if not ordered:
        lasts = np.array(bounds[1:], dtype=np.intp) - 1
        first_steps = steps[firsts].tolist()
        grouped = steps[order]
        back = grouped[1:] < grouped[:-1]
        back[lasts[:-1]] = False  # from one tag's last row to the next tag's first: no step back
        backward = set(np.searchsorted(lasts, np.flatnonzero(back)).tolist())
    first_kinds = kinds[firsts].tolist()
    filtered = run.tag_filter is not None
    found = run.series.get
    simple: SeriesMeta | None = None
    plain = False
    a = 0
    for k, tag in enumerate(tags):
        b = bounds[k + 1]
        if filtered and not run.wants(tag):
            a = b
            continue
        series = found(tag)
        if series is None and first_kinds[k] == 0 and tag not in run.passed_over:
            if simple is None:
                simple = run.simple_value_meta()
                verdict = run.plugin_verdict(simple.plugin_name, simple.plugin_content)
                plain = simple.data_class is DataClass.SCALAR and verdict == (False, None)
            if plain:  # a scalar series its plugin takes as it is: nothing to check or say
                series = run.series[tag] = SeriesData(tag, simple, compact=run.compact)
            elif simple.data_class is DataClass.SCALAR:
                series = run.series_for(tag, simple, state.path)
        rows = order[a:b]
        if (
            series is None
            or series.refused
            or not series.is_scalar
            or (not ordered and (k in backward or _goes_back(series, first_steps[k])))
        ):
            where = None if at is None else at[rows]
            run.apply_scalars(tag, kinds[rows], steps[rows], walls[rows], values[rows], state, where)
        else:
            series.add_block(steps[rows], walls[rows], values[rows])
        a = b


def _goes_back(series: SeriesData, step: int) -> bool:
    """Whether ``step`` comes before the last step of ``series``."""
    last = series.last_step()
    return last is not None and step < last
