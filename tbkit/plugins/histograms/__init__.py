"""The histograms plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "histograms",
        "tensor",
        decoder="tbkit.plugins.histograms.decode",
        legacy_field="histo",
        routes="tbkit.plugins.histograms.routes",
        dedicated_frame=True,
        frames={"histograms": "tbkit.plugins._frames:kind_frame"},
        columns=("edges", "counts"),
    ),
)
