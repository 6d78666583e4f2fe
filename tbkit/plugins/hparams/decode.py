"""Reading hparams summaries: the payload is in the metadata; the value is an empty tensor.

The experiment, sessions and session groups are computed over a DataProvider (see
:meth:`tbkit.provider.DataProvider.list_hyperparameters`); this module checks the payloads
as they are read, so values of types TensorBoard does not support (null, lists, structs)
are reported as problems naming the file.
"""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from tbkit.plugins.hparams.metadata import PLUGIN_NAME, PROTO_VERSION
from tbkit.proto import hparams_pb2

__all__ = [
    "DATA_CLASS",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "check",
    "decode",
    "empty_value",
    "parse",
    "supported",
]

DATA_CLASS = "tensor"
LEGACY_FIELD = None
_SUPPORTED_KINDS = ("number_value", "string_value", "bool_value")


def parse(content: bytes) -> hparams_pb2.HParamsPluginData:
    """The ``HParamsPluginData`` of a summary's metadata.

    Raises:
        ValueError: The bytes are not an ``HParamsPluginData``.
    """
    try:
        return hparams_pb2.HParamsPluginData.FromString(content)
    except DecodeError as exc:
        raise ValueError(f"not an hparams payload: {exc}") from exc


def supported(content: bytes) -> bool:
    """False when the payload is of a newer version than this reader knows (or unreadable)."""
    try:
        return parse(content).version <= PROTO_VERSION
    except ValueError:
        return False


def check(content: bytes) -> str | None:
    """Why a payload cannot be fully read (values of unsupported types), or None when it can.

    Example:
        >>> data = hparams_pb2.HParamsPluginData()
        >>> _ = data.session_start_info.hparams["x"].list_value.values.add(number_value=1)
        >>> check(data.SerializeToString())
        "hparam 'x' is a list_value, not a bool, number or string; left out"
    """
    data = parse(content)
    if data.WhichOneof("data") != "session_start_info":
        return None
    bad = [
        f"hparam {name!r} is a {value.WhichOneof('kind') or 'value without kind'}"
        for name, value in sorted(data.session_start_info.hparams.items())
        if value.WhichOneof("kind") not in _SUPPORTED_KINDS
    ]
    return f"{', '.join(bad)}, not a bool, number or string; left out" if bad else None


def empty_value() -> np.ndarray:
    """The value of a summary carrying only metadata (torch and tensorboardX write hparams so):
    the empty float tensor, as TensorBoard's ``dataclass_compat`` substitutes."""
    return np.zeros(0, dtype=np.float32)


def decode(array: np.ndarray) -> np.ndarray:
    """The value (an empty tensor in every writer's output), kept as it is."""
    return array
