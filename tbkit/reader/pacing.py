"""Background loading that gives way to foreground work (a server's requests).

A long first load applies its records a window at a time, each under the index lock. A
request arriving meanwhile waits for that lock, and for the interpreter, which the loader
keeps busy: on a 2-core machine a page opened during the load of 10,000 tags was answered
about 3x slower than on loaded data. :class:`GivingWay` is the lock the loader takes for
each window: before taking it, it calls ``give_way()``, which a server makes wait while
requests are in flight (up to a bound), so that they go first.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType

__all__ = ["GivingWay"]


class GivingWay:
    """A context manager: ``give_way()``, then ``lock`` held for the block.

    Args:
        lock: The lock the loader would take (re-entrant or not, as it is).
        give_way: Called before each acquisition, without the lock held; may block.

    Example:
        >>> import threading
        >>> calls = []
        >>> with GivingWay(threading.Lock(), lambda: calls.append("gave way")):
        ...     calls.append("locked")
        >>> calls
        ['gave way', 'locked']
    """

    def __init__(self, lock: AbstractContextManager[object], give_way: Callable[[], None]) -> None:
        self._lock = lock
        self._give_way = give_way

    def __enter__(self) -> object:
        self._give_way()
        return self._lock.__enter__()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return self._lock.__exit__(kind, exc, tb)
