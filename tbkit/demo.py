"""Moved to :mod:`tbkit.cli.demo` (``tbkit demo``); this import path keeps working."""

from tbkit.cli.demo import RUNS, write_demo_logdir

__all__ = ["RUNS", "write_demo_logdir"]
