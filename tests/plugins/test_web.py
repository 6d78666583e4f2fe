"""The route helpers' JSON answers: escaping, non-finite floats, NumPy values, wide integers."""

from __future__ import annotations

import json

import numpy as np
from flask import Flask

from tbkit.plugins.web import json_response


def _answer(value):
    with Flask(__name__).app_context():
        response = json_response(value, 201)
    assert response.status_code == 201 and response.mimetype == "application/json"
    return response.get_data()


def test_markup_is_escaped_and_non_finite_floats_are_null():
    body = _answer({"tag": "<script>alert(1)</script>&", "v": [1.5, float("nan"), float("inf"), -0.0]})
    assert b"<" not in body and b">" not in body and b"&" not in body
    assert json.loads(body) == {"tag": "<script>alert(1)</script>&", "v": [1.5, None, None, -0.0]}


def test_numpy_values_and_integer_keys():
    body = _answer({1: np.arange(3, dtype=np.int64), "f": np.float32(0.25), "a": np.array([0.5, np.nan])})
    assert json.loads(body) == {"1": [0, 1, 2], "f": 0.25, "a": [0.5, None]}


def test_integers_beyond_64_bits_fall_back_to_the_standard_encoder():
    body = _answer({"step": 2**70, "v": float("-inf"), "<": 1})
    assert json.loads(body) == {"step": 2**70, "v": None, "<": 1}
    assert b"<" not in body


def test_the_kit_lists_every_public_name_and_gives_run_colours():
    import inspect

    from tbkit.plugins import colors, web

    defined = {
        name
        for name, value in vars(web).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and getattr(value, "__module__", "") in (web.__name__, colors.__name__)
    }
    assert defined | {"EXTENSION"} == set(web.__all__)
