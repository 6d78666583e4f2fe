"""PyTorch integration: ``watch`` a model's weights and gradients, log its graph and learning rates.

A thin public name for :mod:`tbkit.integrations.torch`; ``import tbkit`` does not import it
(nor torch).

Example:
    >>> import tbkit, tbkit.torch  # doctest: +SKIP
    >>> handle = tbkit.torch.watch(model, tbkit.SummaryWriter("runs/exp"), log="all")  # doctest: +SKIP
"""

from tbkit.integrations.torch import WatchHandle, log_graph, log_learning_rates, watch

__all__ = ["WatchHandle", "log_graph", "log_learning_rates", "watch"]
