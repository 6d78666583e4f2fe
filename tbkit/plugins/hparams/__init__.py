"""The hparams plugin.

Importing it installs its session queries (:mod:`.sessions`) as every DataProvider's
``list_hyperparameters`` / ``read_hyperparameters`` (see
:func:`tbkit.provider.set_hparams_queries`): the provider computes hparams without
importing a kind.
"""

from tbkit.plugins.hparams import sessions
from tbkit.plugins.spec import Plugin
from tbkit.provider import set_hparams_queries

set_hparams_queries(sessions)

PLUGINS = (
    Plugin(
        "hparams",
        "tensor",
        decoder="tbkit.plugins.hparams.decode",
        routes="tbkit.plugins.hparams.routes",
        dedicated_frame=True,
        frames={"hparams": "tbkit.plugins.hparams.frames:hparams_frame"},
    ),
)
