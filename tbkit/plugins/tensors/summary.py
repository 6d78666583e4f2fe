"""Tensor summaries: any numeric or string array as a ``TensorProto``."""

from __future__ import annotations

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.tensors.metadata import create_summary_metadata
from tbkit.proto import summary_pb2


def tensor_pb(tag: str, array: np.ndarray, *, with_metadata: bool = True) -> summary_pb2.Summary:
    """A ``Summary`` holding ``array`` as it is (dtype and shape kept)."""
    meta = create_summary_metadata() if with_metadata else None
    return tensor_summary(tag, make_tensor_proto(array), meta)
