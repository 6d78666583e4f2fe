"""Text summaries as sanitized HTML: rank 0 as Markdown, rank 1 and 2 as tables of Markdown cells.

Arrays of rank 3 and more are shown as their first 2-D slice, with a note, as
TensorBoard does.

Example:
    >>> import numpy as np
    >>> text_to_html(np.array("*hi*", dtype=object))
    '<p><em>hi</em></p>'
"""

from __future__ import annotations

import html

import numpy as np

from tbkit.plugins._markdown import markdown_to_safe_html, table_to_safe_html

__all__ = ["text_to_html"]


def _str(item: object) -> str:
    return item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)


def text_to_html(array: np.ndarray) -> str:
    """The sanitized HTML of one text summary value (a string tensor of any rank)."""
    array = np.asarray(array, dtype=object)
    if array.ndim == 0:
        return markdown_to_safe_html(_str(array.reshape(-1)[0]))
    note = ""
    if array.ndim > 2:
        original = array.shape
        array = array[(0,) * (array.ndim - 2)]
        shape = "×".join(map(str, original))
        note = f"<p><em>{html.escape(f'Showing the first 2-D slice of a {shape} array.')}</em></p>"
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    rows = [[_str(cell) for cell in row] for row in array.tolist()]
    return note + table_to_safe_html(rows)
