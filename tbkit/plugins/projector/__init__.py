"""The embedding projector: TSV tensors, TSV metadata, a sprite image and ``projector_config.pbtxt``.

Unlike other kinds, embeddings are not written to event files: TensorBoard's projector
reads plain files named by a text-format ``ProjectorConfig`` in the run directory.
"""

from tbkit.plugins.spec import Plugin

PLUGINS = (
    Plugin(
        "projector",
        "tensor",
        decoder="tbkit.plugins.projector.decode",
        file_based=True,
        routes="tbkit.plugins.projector.routes",
        frames={"embeddings": "tbkit.plugins.projector.frames:embeddings_frame"},
    ),
)
