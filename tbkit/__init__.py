"""tbkit: write, read and serve TensorBoard event files, without TensorFlow.

Example:
    >>> from tbkit import SummaryWriter
    >>> with SummaryWriter("runs/demo") as writer:  # doctest: +SKIP
    ...     writer.add_scalar("loss", 0.5, global_step=1)
"""

from tbkit import errors
from tbkit._version import __version__
from tbkit.plugins.scalars.aggregate import aggregate
from tbkit.reader.dask_read import read_dask
from tbkit.reader.iterator import summary_iterator
from tbkit.reader.logdir import Logdir, read
from tbkit.writer.summary_writer import SummaryWriter


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext tbkit`` in IPython and Jupyter: the ``%tbkit`` magic (see :mod:`tbkit.notebook`)."""
    from tbkit.notebook import load_ipython_extension as load

    load(ipython)


__all__ = [
    "Logdir",
    "SummaryWriter",
    "__version__",
    "aggregate",
    "errors",
    "load_ipython_extension",
    "read",
    "read_dask",
    "summary_iterator",
]
