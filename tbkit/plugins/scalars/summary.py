"""Scalar summaries: a value to a ``Summary`` proto, and the writer's pre-encoded fast form."""

from __future__ import annotations

import struct

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.scalars.metadata import create_summary_metadata
from tbkit.proto import summary_pb2

_SENTINEL = 1.2345678901234567e-300  # a double whose bytes occur nowhere else in the encoding


def scalar_pb(
    tag: str,
    value: float,
    *,
    double: bool = False,
    with_metadata: bool = True,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.Summary:
    """A scalar ``Summary``: a rank-0 DT_FLOAT (or DT_DOUBLE) tensor under the scalars plugin.

    Example:
        >>> scalar_pb("loss", 0.5).value[0].tensor.dtype
        1
    """
    with np.errstate(over="ignore"):  # beyond float32's range is ±inf, as the writer's fast path writes it
        arr = np.asarray(value, dtype=np.float64 if double else np.float32)
    meta = (
        create_summary_metadata(display_name=display_name, description=description) if with_metadata else None
    )
    return tensor_summary(tag, make_tensor_proto(arr), meta)


def scalar_template(tag: str, *, double: bool, with_metadata: bool) -> tuple[bytes, bytes]:
    """The serialized scalar ``Summary`` of ``tag`` split around its value's bytes.

    ``prefix + struct.pack("<f" or "<d", value) + suffix`` is exactly the serialization
    of ``scalar_pb(tag, value, ...)``; the writer uses this to encode scalars without
    building a proto per call.
    """
    fmt = "<d" if double else "<f"
    probe = _SENTINEL if double else 1.2345e-30
    encoded = scalar_pb(tag, probe, double=double, with_metadata=with_metadata).SerializeToString()
    marker = struct.pack(fmt, probe)
    if encoded.count(marker) != 1:  # pragma: no cover - guards the assumption above
        raise AssertionError("scalar template marker is not unique")
    prefix, suffix = encoded.split(marker)
    return prefix, suffix
