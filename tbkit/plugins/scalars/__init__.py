"""The scalars plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "scalars",
        "scalar",
        decoder="tbkit.plugins.scalars.decode",
        legacy_field="simple_value",
        routes="tbkit.plugins.scalars.routes",
    ),
)
