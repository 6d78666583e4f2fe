"""The text plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "text",
        "tensor",
        decoder="tbkit.plugins.text.decode",
        routes="tbkit.plugins.text.routes",
        dedicated_frame=True,
        frames={"text": "tbkit.plugins._frames:kind_frame"},
        columns=("text",),
    ),
)
