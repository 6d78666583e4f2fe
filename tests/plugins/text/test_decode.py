"""Text frame rows: one text is a str whether written rank 0 (TensorFlow) or as a vector of one (torch)."""

from __future__ import annotations

import numpy as np

from tbkit.plugins.text.decode import decode, rows


def _strings(*shape_and_items) -> np.ndarray:
    shape, items = shape_and_items
    array = np.empty(shape, dtype=object)
    array.reshape(-1)[:] = items
    return array


def test_one_text_is_a_str_in_either_form() -> None:
    assert rows(decode(_strings((), [b"tf **text**"]))) == [{"text": "tf **text**"}]
    assert rows(decode(_strings((1,), [b"torch \xc3\xa9"]))) == [{"text": "torch é"}]


def test_a_table_stays_an_array() -> None:
    (row,) = rows(decode(_strings((2,), [b"a", b"b"])))
    assert row["text"].tolist() == ["a", "b"]
    (row,) = rows(decode(_strings((1, 2), [b"a", b"b"])))
    assert row["text"].shape == (1, 2)
