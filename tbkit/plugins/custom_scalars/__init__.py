"""The custom_scalars plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "custom_scalars",
        "tensor",
        decoder="tbkit.plugins.custom_scalars.decode",
        routes="tbkit.plugins.custom_scalars.routes",
        dedicated_frame=True,
        columns=("layout", "proto"),
        media_extension="pb",
    ),
)
