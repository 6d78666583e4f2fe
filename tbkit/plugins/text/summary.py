"""Text summaries: a string (rank 0) or an array of strings (a table) as a string tensor."""

from __future__ import annotations

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.text.metadata import create_summary_metadata
from tbkit.proto import summary_pb2


def text_pb(
    tag: str,
    text: str | np.ndarray,
    *,
    with_metadata: bool = True,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.Summary:
    """A text ``Summary``: Markdown ``text``, or an array of strings shown as a table."""
    arr = np.asarray(text, dtype=object)
    meta = (
        create_summary_metadata(display_name=display_name, description=description) if with_metadata else None
    )
    return tensor_summary(tag, make_tensor_proto(arr), meta)
