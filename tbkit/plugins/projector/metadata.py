"""The projector's file names, directory layout and config entries (torch's layout).

``SummaryWriter.add_embedding(mat, ..., global_step=7, tag="words")`` writes::

    <log_dir>/projector_config.pbtxt          one ``embeddings { ... }`` entry per call
    <log_dir>/00007/words/tensors.tsv         one row of floats per data point
    <log_dir>/00007/words/metadata.tsv        labels (a header row when several columns)
    <log_dir>/00007/words/sprite.png          thumbnails, ceil(sqrt(N)) per row

which is what ``torch.utils.tensorboard`` writes. Paths in the config are relative to the
config's directory, the only place TensorBoard's projector accepts them from.
"""

from __future__ import annotations

import warnings

from google.protobuf import text_format

from tbkit.proto import projector_pb2

PLUGIN_NAME = "projector"
CONFIG_FILENAME = "projector_config.pbtxt"
TENSORS_FILENAME = "tensors.tsv"
METADATA_FILENAME = "metadata.tsv"
SPRITE_FILENAME = "sprite.png"


def encode_tag(tag: str) -> str:
    """Make ``tag`` one directory name: ``%``, ``/`` and ``\\`` become ``%25``, ``%2f``, ``%5c``.

    Example:
        >>> encode_tag("a/b%")
        'a%2fb%25'
    """
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def step_dir(global_step: int) -> str:
    """The step's directory name: the step zero-padded to five digits (``7`` → ``00007``)."""
    return str(global_step).zfill(5)


def embedding_subdir(global_step: int, tag: str) -> str:
    """``<step:05>/<encoded tag>``, relative to the run directory, with ``/`` separators.

    Example:
        >>> embedding_subdir(7, "words")
        '00007/words'
    """
    return f"{step_dir(global_step)}/{encode_tag(tag)}"


def tensor_name(global_step: int, tag: str) -> str:
    """The name the projector lists the embedding under: ``<tag>:<step:05>``.

    Example:
        >>> tensor_name(7, "words")
        'words:00007'
    """
    return f"{tag}:{step_dir(global_step)}"


def embedding_info(
    global_step: int,
    tag: str,
    *,
    has_metadata: bool,
    sprite_dim: tuple[int, int] | None = None,
) -> projector_pb2.EmbeddingInfo:
    """The config entry for one embedding.

    Args:
        global_step: The step the embedding was logged at.
        tag: The embedding's name.
        has_metadata: Whether a ``metadata.tsv`` was written.
        sprite_dim: ``(width, height)`` of one sprite thumbnail, or None without a sprite.

    Example:
        >>> embedding_info(0, "x", has_metadata=False).tensor_path
        '00000/x/tensors.tsv'
    """
    subdir = embedding_subdir(global_step, tag)
    info = projector_pb2.EmbeddingInfo(
        tensor_name=tensor_name(global_step, tag), tensor_path=f"{subdir}/{TENSORS_FILENAME}"
    )
    if has_metadata:
        info.metadata_path = f"{subdir}/{METADATA_FILENAME}"
    if sprite_dim is not None:
        info.sprite.image_path = f"{subdir}/{SPRITE_FILENAME}"
        info.sprite.single_image_dim.extend(sprite_dim)
    return info


def config_text(config: projector_pb2.ProjectorConfig) -> str:
    """``config`` in protobuf text format, as ``projector_config.pbtxt`` holds it."""
    return text_format.MessageToString(config)


def add_to_config(existing: str, info: projector_pb2.EmbeddingInfo) -> str:
    """The config text with ``info`` added after the embeddings already in ``existing``.

    An entry with the same ``tensor_name`` (the same tag and step logged again) is replaced
    in place. Text that does not parse as a ``ProjectorConfig`` is kept as it is, with the
    new entry appended and a warning.

    Example:
        >>> text = add_to_config("", embedding_info(0, "a", has_metadata=False))
        >>> text.count("embeddings {")
        1
    """
    entry = config_text(projector_pb2.ProjectorConfig(embeddings=[info]))
    if not existing.strip():
        return entry
    config = projector_pb2.ProjectorConfig()
    try:
        text_format.Parse(existing, config)
    except text_format.ParseError as exc:
        warnings.warn(
            f"{CONFIG_FILENAME} does not parse as a ProjectorConfig ({exc}); appending the new embedding",
            stacklevel=3,
        )
        return _joined(existing, entry)
    for old in config.embeddings:
        if old.tensor_name == info.tensor_name:
            old.CopyFrom(info)
            return config_text(config)
    return _joined(existing, entry)


def _joined(existing: str, entry: str) -> str:
    return (existing if existing.endswith("\n") else existing + "\n") + entry
