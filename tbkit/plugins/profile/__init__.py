"""The profile plugin: Chrome trace files under ``<run>/plugins/profile/<session>/`` (read side)."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "profile",
        "tensor",
        decoder="tbkit.plugins.profile.decode",
        file_based=True,
        routes="tbkit.plugins.profile.routes",
        frames={"traces": "tbkit.plugins.profile.frames:traces_frame"},
    ),
)
