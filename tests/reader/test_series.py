"""A series' points held in other arrays (a frame's columns) without changing what it reports."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit.provider import DataClass
from tbkit.reader.series import SeriesData, SeriesMeta


def _series() -> SeriesData:
    series = SeriesData("loss", SeriesMeta("scalars", DataClass.SCALAR))
    series.add_block(np.array([0, 5, 2]), np.array([1.0, 3.0, 2.0]), np.array([0.5, 0.25, 1.0]))
    series.add(7, 4.0, 2.0)
    return series


def test_rebase_keeps_the_points_and_what_is_known_of_them():
    series = _series()
    steps, walls, values = (c.copy() for c in series.columns())
    before = (len(series), series.extent(), series.last())
    series.rebase(steps, walls, values)
    assert (len(series), series.extent(), series.last()) == before == (4, (7, 4.0), (7, 4.0, 2.0))
    assert series.columns()[0] is steps  # held, not copied


def test_rebase_refuses_other_points():
    with pytest.raises(ValueError, match="3 points given for a series of 4"):
        _series().rebase(np.zeros(3, np.int64), np.zeros(3), np.zeros(3))


def _measured(series: SeriesData) -> tuple[object, ...]:
    return len(series), series.extent(), series.last(), series.last_step()


def test_blocks_are_measured_when_asked_and_as_if_at_once():
    series = SeriesData("loss", SeriesMeta("scalars", DataClass.SCALAR))
    assert _measured(series) == (0, None, None, None)
    series.add_block(np.array([3, 9, 4]), np.array([5.0, 1.0, 2.0]), np.array([0.5, 0.25, 1.0]))
    series.add_block(np.array([1, 2]), np.array([0.5, 0.75]), np.array([4.0, 8.0]))
    assert _measured(series) == (5, (9, 5.0), (2, 0.75, 8.0), 2)
    series.add(0, 0.1, 3.0)  # a point after measured blocks is the last
    series.add_block(np.array([12]), np.array([0.2]), np.array([6.0]))
    series.add(11, 0.3, 7.0)  # a point after a block not measured yet is still the last
    assert _measured(series) == (8, (12, 5.0), (11, 0.3, 7.0), 11)


def test_a_merge_or_rebase_before_measuring_keeps_what_is_reported():
    def fresh() -> SeriesData:
        series = SeriesData("loss", SeriesMeta("scalars", DataClass.SCALAR))
        series.add_block(np.array([3, 9]), np.array([5.0, 1.0]), np.array([0.5, 0.25]))
        series.add_block(np.array([4]), np.array([6.0]), np.array([2.0]))
        return series

    expected = (3, (9, 6.0), (4, 6.0, 2.0), 4)
    merged = fresh()
    merged.columns()  # two blocks merged into one before anything was measured
    assert _measured(merged) == expected
    rebased = fresh()
    rebased.rebase(*(c.copy() for c in fresh().columns()))
    assert _measured(rebased) == expected
    purged = fresh()
    assert purged.purge_from(4) == 2
    assert _measured(purged) == (1, (3, 5.0), (3, 5.0, 0.5), 3)


def test_blocks_measured_or_not_can_follow_one_another():
    series = SeriesData("loss", SeriesMeta("scalars", DataClass.SCALAR))
    series.add_block(np.array([1, 2]), np.array([0.0, 9.0]), np.array([0.0, 1.0]))
    assert series.extent() == (2, 9.0)  # measured
    series.add(0, 1.0, 5.0)
    series.add_block(np.array([3]), np.array([2.0]), np.array([2.0]))  # after the pending point
    series.add_block(np.array([-1]), np.array([3.0]), np.array([4.0]))
    assert _measured(series) == (5, (3, 9.0), (-1, 3.0, 4.0), -1)
    assert [c.tolist() for c in series.columns()] == [
        [1, 2, 0, 3, -1],
        [0.0, 9.0, 1.0, 2.0, 3.0],
        [0.0, 1.0, 5.0, 2.0, 4.0],
    ]
