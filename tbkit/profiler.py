"""Profiler traces laid out for TensorBoard's profile tools (the public import path).

The profile kind owns its write side: everything here is :mod:`tbkit.plugins.profile.write`,
re-exported so ``from tbkit.profiler import trace_handler`` keeps working.

Example:
    >>> import torch  # doctest: +SKIP
    >>> with torch.profiler.profile(on_trace_ready=trace_handler("runs/exp1")) as prof:  # doctest: +SKIP
    ...     model(x)
"""

from tbkit.plugins.profile.write import (  # noqa: F401 (PROFILE_DIR ... session_name: importable here as before)
    PROFILE_DIR,
    TRACE_SUFFIX,
    default_worker,
    load_trace,
    session_name,
    trace_handler,
    trace_path,
    write_trace,
)

__all__ = ["load_trace", "trace_handler", "trace_path", "write_trace"]
