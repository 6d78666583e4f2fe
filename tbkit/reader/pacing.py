"""Background loading that gives way to foreground work (a server's requests).

A long first load applies its records a window at a time, each under the index lock. A
request arriving meanwhile waits for that lock, and for the interpreter, which the loader
keeps busy: on a 2-core machine a page opened during the load of 10,000 tags was answered
about 3x slower than on loaded data. :class:`GivingWay` is the lock the loader takes for
each window: before taking it, it calls ``give_way()``, which a server makes wait while
requests are in flight (up to a bound), so that they go first. A window of many tags
takes long to apply even so (10,000 tags: 0.1-0.2 s), so the loader also pauses between
groups of its tags (:func:`pause`): the lock is let go, ``give_way()`` called, and the lock
taken again.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType

__all__ = ["GivingWay", "pause"]


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
        if not self._held():
            self._give_way()
        return self._lock.__enter__()

    def pause(self) -> None:
        """Inside the block: let go of the lock, ``give_way()``, then take the lock again.

        Only the outermost hold lets a re-entrant lock go: when the caller held it before the
        block, nothing waits (requests could not be answered meanwhile anyway).
        """
        self._lock.__exit__(None, None, None)
        try:
            if not self._held():
                self._give_way()
        finally:
            self._lock.__enter__()

    def _held(self) -> bool:
        """Whether this thread holds the lock (a re-entrant lock taken outside this block)."""
        owned = getattr(self._lock, "_is_owned", None)
        return bool(owned()) if owned is not None else False

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return self._lock.__exit__(kind, exc, tb)


def pause(lock: AbstractContextManager[object]) -> None:
    """Inside ``with lock``: :meth:`GivingWay.pause` when ``lock`` gives way, else nothing."""
    if isinstance(lock, GivingWay):
        lock.pause()
