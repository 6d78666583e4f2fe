"""Scalar summaries: a value to a ``Summary`` proto, and the writer's pre-encoded fast forms.

Two forms, as ``torch.utils.tensorboard`` writes them: the TF1 ``simple_value`` (torch's
default, ``new_style=False``, read by every reader), and the rank-0 tensor under the
scalars plugin (``new_style=True``).
"""

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


def simple_scalar_pb(
    tag: str, value: float, *, display_name: str = "", description: str = ""
) -> summary_pb2.Summary:
    """A TF1 scalar ``Summary``: ``simple_value`` (a float32), as torch writes by default.

    ``display_name`` and ``description`` (tensorboardX's keywords) go into a metadata without
    plugin data, as tensorboardX writes them; without them there is no metadata at all.

    Example:
        >>> simple_scalar_pb("loss", 0.5).value[0].simple_value
        0.5
    """
    value_pb = summary_pb2.Summary.Value(tag=tag, simple_value=value)
    if display_name or description:
        value_pb.metadata.display_name = display_name
        value_pb.metadata.summary_description = description
    return summary_pb2.Summary(value=[value_pb])


def simple_scalar_template(tag: str) -> tuple[bytes, bytes]:
    """The serialized ``simple_scalar_pb(tag, value)`` split around the value's 4 bytes."""
    return _split(simple_scalar_pb(tag, 1.2345e-30).SerializeToString(), struct.pack("<f", 1.2345e-30))


def scalar_template(tag: str, *, double: bool, with_metadata: bool) -> tuple[bytes, bytes]:
    """The serialized scalar ``Summary`` of ``tag`` split around its value's bytes.

    ``prefix + struct.pack("<f" or "<d", value) + suffix`` is exactly the serialization
    of ``scalar_pb(tag, value, ...)``; the writer uses this to encode scalars without
    building a proto per call.
    """
    fmt = "<d" if double else "<f"
    probe = _SENTINEL if double else 1.2345e-30
    encoded = scalar_pb(tag, probe, double=double, with_metadata=with_metadata).SerializeToString()
    return _split(encoded, struct.pack(fmt, probe))


def _split(encoded: bytes, marker: bytes) -> tuple[bytes, bytes]:
    if encoded.count(marker) != 1:  # pragma: no cover - guards the assumption above
        raise AssertionError("scalar template marker is not unique")
    prefix, suffix = encoded.split(marker)
    return prefix, suffix
