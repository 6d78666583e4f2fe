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

__all__ = ["release_free_memory", "settle_heap"]

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
