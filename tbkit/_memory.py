"""Giving freed heap memory back to the operating system (glibc only; a no-op elsewhere).

The loader builds many medium-sized arrays; once they are copied into a frame's columns
and freed, glibc keeps their pages in its heap. ``malloc_trim`` returns them, so the
peak memory of ``scalars()`` stays near the frame's own size.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

__all__ = ["release_free_memory", "release_when_due", "settle_heap"]

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameters
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 1 << 20  # allocations from this size get pages of their own, returned when freed
ARENA_MAX = 2


def _libc_function(name: str, argtypes: list[type]) -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        function = getattr(libc, name)
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return None
    function.argtypes = argtypes
    function.restype = ctypes.c_int
    return function


TRIM_EVERY = 16 << 20  # bytes of work between two trims of :func:`release_when_due`
_due = 0

_trim = _libc_function("malloc_trim", [ctypes.c_size_t])
_mallopt = _libc_function("mallopt", [ctypes.c_int, ctypes.c_int])


def settle_heap() -> bool:
    """Keep a long-lived process's heap near its live data (glibc only; else a no-op).

    By default glibc gives each new thread a heap arena of its own and raises its
    threshold for page-backed allocations whenever a large block is freed, so that later
    medium arrays come from a heap that fragments. A server whose request threads build
    arrays while a loader thread appends blocks then keeps tens of MB it does not use.
    This caps the arenas at :data:`ARENA_MAX` and fixes the threshold at
    :data:`MMAP_THRESHOLD`. Returns True when the settings were applied.
    """
    if _mallopt is None:
        return False
    return bool(_mallopt(_M_ARENA_MAX, ARENA_MAX)) and bool(_mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def release_free_memory() -> None:
    """Return the heap's free pages to the operating system, where the C library allows it."""
    if _trim is not None:
        _trim(0)


def release_when_due(nbytes: int) -> bool:
    """Count ``nbytes`` of work done (e.g. bytes read and decoded), and release the heap's free
    pages once :data:`TRIM_EVERY` bytes have been counted since the last release.

    A trim costs a walk of the heap (about 0.15 ms, more on a large heap): after each of
    thousands of small files it would cost more than reading them. Returns True when it
    released now.

    Example:
        >>> release_when_due(TRIM_EVERY)
        True
        >>> release_when_due(1)
        False
    """
    global _due
    _due += nbytes
    if _due < TRIM_EVERY:
        return False
    _due = 0
    release_free_memory()
    return True
