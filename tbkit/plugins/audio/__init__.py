"""The audio plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "audio",
        "blob_sequence",
        decoder="tbkit.plugins.audio.decode",
        legacy_field="audio",
        routes="tbkit.plugins.audio.routes",
        dedicated_frame=True,
        frames={"audio": "tbkit.plugins._frames:kind_frame"},
        columns=("index", "sample_rate", "num_channels", "length_frames", "label", "data"),
    ),
)
