"""Scalars of many tags applied at once give the run exactly what applying them tag by tag gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.reader.events import FileState, RunData
from tbkit.reader.scalar_groups import apply_scalar_groups

TAGS = ["a", "b", "c", "d"]

rows = st.lists(
    st.tuples(st.sampled_from(range(len(TAGS))), st.sampled_from([0, 0, 0, 1, 2]), st.integers(-3, 12)),
    min_size=1,
    max_size=40,
)


def _grouped(rows: list[tuple[int, int, int]]) -> tuple[list[str], list[np.ndarray], list[int]]:
    """The rows in tag order (stable), as the loader hands them over: tags, columns, bounds."""
    rows = sorted(rows, key=lambda r: r[0])
    tags = sorted({TAGS[t] for t, _, _ in rows})
    kinds = np.array([k for _, k, _ in rows], dtype=np.uint8)
    steps = np.array([s for _, _, s in rows], dtype=np.int64)
    walls = np.arange(len(rows), dtype=np.float64) + 100.0
    values = np.linspace(-1.0, 1.0, len(rows))
    at = np.arange(len(rows), dtype=np.int64) * 40 + 24
    bounds = [0]
    for tag in tags:
        bounds.append(bounds[-1] + sum(TAGS[t] == tag for t, _, _ in rows))
    return tags, [kinds, steps, walls, values, at], bounds


def _state(run: RunData) -> object:
    series = {
        tag: (s.meta, s.refused, len(s), s.extent(), s.last(), *(c.tolist() for c in s.columns()))
        for tag, s in run.series.items()
    }
    return series, run.start_time, run.deferred, run.passed_over, run.problems


def _runs(modern: bool, scalars_only: bool) -> tuple[RunData, RunData, FileState, FileState]:
    one, two = RunData("r", scalars_only=scalars_only), RunData("r", scalars_only=scalars_only)
    first, second = FileState("f"), FileState("f")
    first.modern = second.modern = modern
    return one, two, first, second


@settings(max_examples=150, deadline=None)
@given(batches=st.lists(rows, min_size=1, max_size=3), modern=st.booleans(), scalars_only=st.booleans())
def test_groups_apply_as_tag_by_tag(batches, modern, scalars_only):
    by_tag, at_once, state_a, state_b = _runs(modern, scalars_only)
    for batch in batches:
        tags, (kinds, steps, walls, values, at), bounds = _grouped(batch)
        where = at if scalars_only else None
        for k, tag in enumerate(tags):
            a, b = bounds[k], bounds[k + 1]
            cut = None if where is None else where[a:b]
            by_tag.apply_scalars(tag, kinds[a:b], steps[a:b], walls[a:b], values[a:b], state_a, cut)
        apply_scalar_groups(at_once, tags, kinds, steps, walls, values, bounds, state_b, where)
    assert _state(at_once) == _state(by_tag)


def test_a_step_going_back_in_a_legacy_file_purges_that_tag_alone():
    run, state = RunData("r"), FileState("f")  # no file_version: the legacy rule, per tag
    steps = np.array([0, 1, 2, 0, 5, 6], dtype=np.int64)
    kinds = np.zeros(6, dtype=np.uint8)
    walls = np.arange(6, dtype=np.float64)
    apply_scalar_groups(run, ["a", "b"], kinds, steps, walls, walls * 2, [0, 4, 6], state)
    assert run.series["a"].columns()[0].tolist() == [0]  # 0, 1, 2, then 0 again: the first three go
    assert run.series["b"].columns()[0].tolist() == [5, 6]
    assert run.series["a"].extent() == (0, 3.0)


def test_each_series_owns_its_points():
    run, state = RunData("r"), FileState("f")
    steps = np.arange(6, dtype=np.int64)
    walls = steps.astype(np.float64)
    apply_scalar_groups(run, ["a", "b"], np.zeros(6, np.uint8), steps, walls, walls, [0, 3, 6], state)
    for series in run.series.values():
        assert all(c.base is None for c in series.columns())  # not views of the block handed over


@settings(max_examples=100, deadline=None)
@given(batch=rows, modern=st.booleans(), scalars_only=st.booleans())
def test_groups_by_an_order_apply_as_tag_by_tag(batch, modern, scalars_only):
    """The loader's form: the columns as read (tags interleaved), each tag's rows by its slice of
    the stable tag order."""
    by_tag, at_once, state_a, state_b = _runs(modern, scalars_only)
    ids = np.array([t for t, _, _ in batch])
    kinds = np.array([k for _, k, _ in batch], dtype=np.uint8)
    steps = np.array([s for _, _, s in batch], dtype=np.int64)
    walls = np.arange(len(batch), dtype=np.float64) + 100.0
    values = np.linspace(-1.0, 1.0, len(batch))
    at = np.arange(len(batch), dtype=np.int64) * 40 + 24 if scalars_only else None
    order = np.argsort(ids, kind="stable")
    present = sorted(set(ids.tolist()))
    bounds = [0, *np.cumsum([np.count_nonzero(ids == t) for t in present]).tolist()]
    tags = [TAGS[t] for t in present]
    for k, tag in enumerate(tags):
        rows_k = order[bounds[k] : bounds[k + 1]]
        cut = None if at is None else at[rows_k]
        by_tag.apply_scalars(tag, kinds[rows_k], steps[rows_k], walls[rows_k], values[rows_k], state_a, cut)
    apply_scalar_groups(at_once, tags, kinds, steps, walls, values, bounds, state_b, at, order)
    assert _state(at_once) == _state(by_tag)
    assert steps.tolist() == [s for _, _, s in batch]  # the columns handed over are left as they were
