"""The pr_curves plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "pr_curves",
        "tensor",
        decoder="tbkit.plugins.pr_curves.decode",
        routes="tbkit.plugins.pr_curves.routes",
        dedicated_frame=True,
        frames={"pr_curves": "tbkit.plugins._frames:kind_frame"},
        columns=("thresholds", "tp", "fp", "tn", "fn", "precision", "recall"),
    ),
)
