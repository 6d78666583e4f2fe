"""query.series_json: the bytes web.json_bytes makes of query.series_payload, on every path."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.plugins import web
from tbkit.plugins.scalars import query

VALUES = st.one_of(st.floats(-1e30, 1e30), st.sampled_from([math.nan, math.inf, -math.inf]))


@st.composite
def series(draw: st.DrawFn) -> query.Columns:
    values = draw(st.lists(VALUES, min_size=1, max_size=60))
    steps = draw(st.lists(st.integers(-5, 200), min_size=len(values), max_size=len(values)))
    if draw(st.booleans()):
        steps = sorted(steps)
    walls = [1.7e9 + 0.01 * i for i in range(len(values))]
    return np.array(steps, dtype=np.int64), np.array(walls), np.array(values)


@settings(max_examples=300, deadline=None)
@given(
    series(),
    st.one_of(st.none(), st.integers(1, 80)),
    st.sampled_from([0.0, 0.6, 0.95]),
    st.one_of(st.none(), st.integers(-5, 200)),
    st.one_of(st.none(), st.integers(-5, 200)),
)
def test_same_bytes_as_the_payload(columns, points, smoothing, min_step, max_step) -> None:
    options = {"points": points, "smoothing": smoothing, "min_step": min_step, "max_step": max_step}
    assert query.series_json(columns, **options) == web.json_bytes(query.series_payload(columns, **options))


def test_nonfinite_values_are_null_and_named() -> None:
    columns = (np.array([0, 1, 2, 3]), np.zeros(4), np.array([1.0, math.nan, math.inf, -math.inf]))
    text = query.series_json(columns, points=None).decode()
    assert '"value":[1.0,null,null,null]' in text
    assert '"nonfinite":{"1":"nan","2":"inf","3":"-inf"}' in text


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_other_dtypes_are_converted(dtype) -> None:
    columns = (np.arange(3, dtype=np.int32), np.full(3, 0.5, dtype=dtype), np.array([1, 2.5, 3], dtype=dtype))
    reference = web.json_bytes(query.series_payload(columns, points=None))
    assert query.series_json(columns, points=None) == reference
