"""The custom_scalars plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "custom_scalars",
        "tensor",
        decoder="tbkit.plugins.custom_scalars.decode",
        routes="tbkit.plugins.custom_scalars.routes",
        dedicated_frame=True,
        frames={"custom_scalars": "tbkit.plugins._frames:kind_frame"},
        columns=("layout", "proto"),
        media_extension="pb",
    ),
)
