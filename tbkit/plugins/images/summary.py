"""Image summaries: a TF1 ``Summary.Image`` (torch's form), or a ``[width, height, image, ...]`` tensor."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.images.metadata import create_summary_metadata
from tbkit.proto import summary_pb2


def image_pb(
    tag: str,
    images: Sequence[bytes],
    *,
    width: int,
    height: int,
    with_metadata: bool = True,
    display_name: str = "",
    description: str = "",
) -> summary_pb2.Summary:
    """An image ``Summary`` of one or more encoded images of the same ``width`` × ``height``."""
    items = np.empty(2 + len(images), dtype=object)
    items[:] = [str(width).encode(), str(height).encode(), *images]
    meta = (
        create_summary_metadata(display_name=display_name, description=description) if with_metadata else None
    )
    return tensor_summary(tag, make_tensor_proto(items), meta)


def legacy_image_pb(tag: str, image: bytes, *, width: int, height: int, channels: int) -> summary_pb2.Summary:
    """A TF1 ``Summary.Image`` of one encoded image, as ``torch.utils.tensorboard`` writes it.

    ``channels`` (1, 3 or 4) goes into ``colorspace``, as torch does.

    Example:
        >>> legacy_image_pb("img", b"png", width=4, height=2, channels=3).value[0].image.height
        2
    """
    value = summary_pb2.Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=image
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=value)])
