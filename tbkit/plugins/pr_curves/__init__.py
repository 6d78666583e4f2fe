"""The pr_curves plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "pr_curves",
        "tensor",
        decoder="tbkit.plugins.pr_curves.decode",
        routes="tbkit.plugins.pr_curves.routes",
        dedicated_frame=True,
        columns=("thresholds", "tp", "fp", "tn", "fn", "precision", "recall"),
    ),
)
