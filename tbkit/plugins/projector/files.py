"""Write one embedding's files and add it to the run's ``projector_config.pbtxt``.

The only module of the plugin that does I/O, always through :mod:`tbkit.record.storage`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from google.protobuf import text_format

from tbkit.errors import DataError
from tbkit.plugins.projector import metadata as meta
from tbkit.plugins.projector import summary
from tbkit.proto import projector_pb2
from tbkit.record import storage


def write_embedding(
    log_dir: str,
    mat: Any,
    metadata: Any = None,
    label_img: Any = None,
    *,
    global_step: int = 0,
    tag: str = "default",
    metadata_header: Sequence[Any] | None = None,
) -> projector_pb2.EmbeddingInfo:
    """Write ``mat`` (and its labels and thumbnails) for TensorBoard's projector.

    Everything is validated before the first byte is written. Files go to
    ``<log_dir>/<step:05>/<tag>/`` and the embedding is added to
    ``<log_dir>/projector_config.pbtxt`` after those already there (an entry for the same
    tag and step is replaced).

    Args:
        log_dir: The run directory (local path or fsspec URL).
        mat: ``N×D`` values, one row per data point.
        metadata: One label per data point, or one row of labels with ``metadata_header``.
        label_img: ``N×C×H×W`` thumbnails (C in 1, 3, 4), tiled into ``sprite.png``.
        global_step: The step; names the directory.
        tag: The embedding's name.
        metadata_header: Column names of multi-column metadata.

    Returns:
        The config entry that was added.

    Example:
        >>> write_embedding(tmp_dir, [[0.0, 1.0], [1.0, 0.0]], ["a", "b"]).tensor_name  # doctest: +SKIP
        'default:00000'
    """
    array = summary.check_mat(mat)
    num_points = array.shape[0]
    metadata_bytes = None if metadata is None else summary.metadata_tsv(metadata, num_points, metadata_header)
    images = None if label_img is None else summary.sprite_images(label_img, num_points)
    tensors_bytes = summary.tensors_tsv(array)
    sprite = None if images is None else summary.sprite_png(images)

    save_dir = storage.join(log_dir, *meta.embedding_subdir(global_step, tag).split("/"))
    if storage.exists(save_dir):
        warnings.warn(
            f"embedding directory {save_dir} exists and is overwritten; did you set global_step "
            "for add_embedding()?",
            stacklevel=3,
        )
    storage.makedirs(save_dir)
    storage.write_bytes(storage.join(save_dir, meta.TENSORS_FILENAME), tensors_bytes)
    if metadata_bytes is not None:
        storage.write_bytes(storage.join(save_dir, meta.METADATA_FILENAME), metadata_bytes)
    if sprite is not None:
        storage.write_bytes(storage.join(save_dir, meta.SPRITE_FILENAME), sprite[0])

    sprite_dim = None if sprite is None else sprite[1]
    info = meta.embedding_info(
        global_step, tag, has_metadata=metadata_bytes is not None, sprite_dim=sprite_dim
    )
    config_path = storage.join(log_dir, meta.CONFIG_FILENAME)
    existing = storage.read_bytes(config_path).decode("utf-8") if storage.exists(config_path) else ""
    storage.write_bytes(config_path, meta.add_to_config(existing, info).encode("utf-8"))
    return info


def read_config(log_dir: str) -> projector_pb2.ProjectorConfig:
    """The run's ``projector_config.pbtxt`` parsed (empty when there is none).

    Raises:
        DataError: The file is not a text-format ``ProjectorConfig``.
    """
    config = projector_pb2.ProjectorConfig()
    path = storage.join(log_dir, meta.CONFIG_FILENAME)
    if storage.exists(path):
        try:
            text_format.Parse(storage.read_bytes(path).decode("utf-8"), config)
        except (text_format.ParseError, UnicodeDecodeError) as exc:
            raise DataError(f"not a ProjectorConfig in text format: {exc}", path=path) from exc
    return config
