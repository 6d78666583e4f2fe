"""Declared hyperparameters and metrics for :meth:`SummaryWriter.add_hparams_config`.

Example:
    >>> from tbkit.hparams import Discrete, HParam, Interval, Metric
    >>> config = [HParam("lr", Interval(1e-4, 0.1)), HParam("optimizer", Discrete(["adam", "sgd"]))]
"""

from tbkit.plugins.hparams.api import DatasetType, Discrete, HParam, Interval, Metric, Status

__all__ = ["DatasetType", "Discrete", "HParam", "Interval", "Metric", "Status"]
