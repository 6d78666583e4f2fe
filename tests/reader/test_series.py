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
