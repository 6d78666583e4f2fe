"""The image dashboard's routes (``/data/plugin/images/``).

An image series is a blob sequence ``[width, height, image, image, ...]`` per step;
``sample=I`` picks the ``I``-th image of each step. An image's entry costs one blob read:
its format and size come from the image's own header (the width and height blobs are read
only when the header gives no size).
"""

from __future__ import annotations

from flask import Blueprint, Response

from tbkit.plugins import web
from tbkit.plugins.images.decode import image_format
from tbkit.plugins.images.metadata import PLUGIN_NAME
from tbkit.plugins.images.serve import image_content_type, image_size
from tbkit.provider import BlobSequenceDatum, DataProvider

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("images", "Images", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 10

blueprint = Blueprint("images", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    listing = web.provider().list_blob_sequences(PLUGIN_NAME)
    return web.json_response(
        {
            run: {
                tag: {
                    "samples": max(0, m.max_length - 2),
                    "display_name": m.display_name,
                    "description": m.description,
                    "max_step": m.max_step,
                }
                for tag, m in series.items()
            }
            for run, series in listing.items()
        }
    )


def _int_blob(provider: DataProvider, key: str) -> int | None:
    try:
        return int(provider.read_blob(key))
    except ValueError:
        return None


def _size(provider: DataProvider, datum: BlobSequenceDatum, image: bytes) -> tuple[int | None, int | None]:
    """The image's width and height: from its header, else from the step's width and height blobs."""
    found = image_size(image)
    if found is not None:
        return found
    return _int_blob(provider, datum.values[0].blob_key), _int_blob(provider, datum.values[1].blob_key)


@blueprint.get("/images")
def images() -> Response:
    provider, sample, series = web.sampled_blob_series(PLUGIN_NAME, DEFAULT_STEPS)
    out = []
    for datum in series:
        if len(datum.values) <= 2 + sample:
            continue
        key = datum.values[2 + sample].blob_key
        image = provider.read_blob(key)
        width, height = _size(provider, datum, image)
        out.append(
            {
                "step": datum.step,
                "wall_time": datum.wall_time,
                "width": width,
                "height": height,
                "format": image_format(image[:16]),
                "blob_key": key,
            }
        )
    return web.json_response(out)


@blueprint.get("/individualImage")
def individual_image() -> Response:
    return web.blob_response(image_content_type, "an image")
