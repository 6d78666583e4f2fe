"""The write side: a pure summary builder and a helper appending matrices to a run."""

from __future__ import annotations

import json

import numpy as np

import tbkit
from tbkit.proto import summary_pb2, types_pb2
from tbkit_confusion import PLUGIN_NAME, VERSION

__all__ = ["confusion_summary", "log_confusion"]


def confusion_summary(tag: str, matrix: np.ndarray, *, version: int = VERSION) -> summary_pb2.Summary:
    """A ``Summary`` holding one square matrix of counts (int64), with this plugin's metadata."""
    counts = np.asarray(matrix)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError(f"a confusion matrix is square, got shape {counts.shape}")
    value = summary_pb2.Summary.Value(tag=tag)
    value.tensor.dtype = types_pb2.DT_INT64
    for size in counts.shape:
        value.tensor.tensor_shape.dim.add(size=size)
    value.tensor.tensor_content = counts.astype("<i8").tobytes()  # little-endian, as the format says
    value.metadata.plugin_data.plugin_name = PLUGIN_NAME
    value.metadata.plugin_data.content = json.dumps({"version": version}).encode()
    value.metadata.data_class = summary_pb2.DATA_CLASS_TENSOR
    return summary_pb2.Summary(value=[value])


def log_confusion(run_dir: str, tag: str, matrices: list[np.ndarray], *, version: int = VERSION) -> None:
    """Append one matrix per step (0, 1, ...) to an event file of ``run_dir``."""
    with tbkit.SummaryWriter(run_dir) as writer:
        for step, matrix in enumerate(matrices):
            writer.add_summary(confusion_summary(tag, matrix, version=version), step)
