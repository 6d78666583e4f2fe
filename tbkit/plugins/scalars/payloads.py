"""Encoded answers of the scalars route, one per series, reused while the series is unchanged.

A chart's answer for one run is computed from the whole series (smoothing, the step range,
min/max downsampling) and then encoded as JSON: a few milliseconds per series, paid again
on every request. While a big logdir loads, or when live reload bumps the data generation,
most series have not changed since the last request; their encoded answers are kept here
in a small LRU (bounded in bytes), one slot per series and request parameters, holding the
answer of one version of the series (its point count and last point): a newer version
replaces the older one, so a series that keeps growing holds one slot, not one per version.

Example:
    >>> cache = PayloadCache(max_bytes=100)
    >>> slot = PayloadCache.key("train", "loss", (1000, 0.0, None, None))
    >>> cache.put(slot, (3, 2, 1.0, "0.5"), b"[1]")
    >>> cache.get(slot, (3, 2, 1.0, "0.5")), cache.get(slot, (4, 3, 2.0, "0.25"))
    (b'[1]', None)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

import numpy as np

__all__ = ["MAX_BYTES", "PayloadCache", "version_of", "version_of_columns"]

MAX_BYTES = 4 << 20
Version = tuple[int, int, float, str]


def version_of(count: int, last_step: int, last_wall: float, last_value: float) -> Version:
    """A series' version from its point count and last point (as a ``SeriesInfo`` has them).

    The value enters as its ``repr``, so that a NaN last value gives a version equal to itself.
    """
    return int(count), int(last_step), float(last_wall), repr(float(last_value))


def version_of_columns(steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> Version:
    """:func:`version_of` the series whose columns these are (non-empty)."""
    return version_of(len(steps), steps[-1], walls[-1], values[-1])


class PayloadCache:
    """A thread-safe LRU of encoded per-series answers, at most ``max_bytes`` in all."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Hashable, bytes]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(run: str, tag: str, params: tuple[object, ...]) -> Hashable:
        """The slot of one series' answers to one set of request parameters."""
        return (run, tag, params)

    def get(self, key: Hashable, version: Hashable) -> bytes | None:
        """The answer in slot ``key`` if it is of ``version`` (then the most recently used), else None.

        A version must compare equal to itself (pass ``repr`` of a float that may be NaN,
        as :func:`version_of` does).
        """
        with self._lock:
            found = self._items.get(key)
            if found is None or found[0] != version:
                return None
            self._items.move_to_end(key)
            return found[1]

    def put(self, key: Hashable, version: Hashable, data: bytes) -> None:
        """Store ``data`` as slot ``key``'s answer of ``version`` (least recently used go past the bound)."""
        if len(data) > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old[1])
            self._items[key] = (version, data)
            self._size += len(data)
            while self._size > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= len(dropped)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
