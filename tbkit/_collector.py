"""Python's cyclic garbage collector held off while a load builds its many small objects.

A load of many runs makes tens of thousands of long-lived containers (each run's state,
each series and its block list). Every 700 of them the collector runs, and as they pile up
it walks every object of the process, pandas' and NumPy's included: 2,000 small runs took
0.24 s to load with it, 0.19 s without, in a fresh process (one full collection of about
110,000 objects costs 30-40 ms here, and it ran during the load). None of what a load makes
is garbage in a cycle, so a load holds the collector off (:func:`collector_held`) and lets
it run again when it ends: the objects are then examined once, by the next collection,
instead of again and again while they pile up. Nothing else changes: a cycle made meanwhile
(by any thread) is collected by that next collection.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_held"]

_lock = threading.Lock()
_holders = 0
_enable_after = False  # whether the collector was on when the first holder came


@contextmanager
def collector_held() -> Iterator[None]:
    """Hold the cyclic garbage collector off for the block (re-entrant, and across threads).

    The first holder turns the collector off if it was on; the last to leave turns it back
    on. If it was off already, it stays off.

    Example:
        >>> import gc
        >>> with collector_held():
        ...     gc.isenabled()
        False
        >>> gc.isenabled()
        True
    """
    global _holders, _enable_after
    with _lock:
        if not _holders:
            _enable_after = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if not _holders and _enable_after:
                gc.enable()
