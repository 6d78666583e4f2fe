"""The mesh plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "mesh",
        "tensor",
        decoder="tbkit.plugins.mesh.decode",
        routes="tbkit.plugins.mesh.routes",
        dedicated_frame=True,
    ),
)
