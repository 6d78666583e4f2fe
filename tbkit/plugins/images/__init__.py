"""The images plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "images",
        "blob_sequence",
        decoder="tbkit.plugins.images.decode",
        legacy_field="image",
        routes="tbkit.plugins.images.routes",
        dedicated_frame=True,
        frames={"images": "tbkit.plugins._frames:kind_frame"},
        columns=("index", "width", "height", "format", "data"),
    ),
)
