"""The mesh plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "mesh",
        "tensor",
        decoder="tbkit.plugins.mesh.decode",
        routes="tbkit.plugins.mesh.routes",
        dedicated_frame=True,
        frames={"meshes": "tbkit.plugins.mesh.frames:meshes_frame"},
    ),
)
