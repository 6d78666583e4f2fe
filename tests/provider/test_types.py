"""The provider's value types: frozen, compared by value, and the run/tag filter."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tbkit.errors import InvalidArgumentError
from tbkit.provider import RunTagFilter, ScalarDatum, TensorDatum


def test_values_are_frozen():
    datum = ScalarDatum(1, 2.0, 3.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        datum.value = 4.0  # type: ignore[misc]
    assert datum == ScalarDatum(1, 2.0, 3.0) and datum != ScalarDatum(1, 2.0, 3.5)
    assert TensorDatum(1, 2.0, np.array([np.nan, 1.0])) == TensorDatum(1, 2.0, np.array([np.nan, 1.0]))
    assert TensorDatum(1, 2.0, np.array([1, 2])) != TensorDatum(1, 2.0, np.array([1, 3]))
    assert TensorDatum(1, 2.0, np.array([1, 2])) != TensorDatum(2, 2.0, np.array([1, 2]))


def test_run_tag_filter():
    f = RunTagFilter(runs=["a"], tags=["x", "y"])
    assert f.matches("a", "x") and not f.matches("b", "x") and not f.matches("a", "z")
    assert RunTagFilter().matches("any", "thing")
    with pytest.raises(InvalidArgumentError):
        RunTagFilter(runs="a")
