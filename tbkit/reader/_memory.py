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

__all__ = ["release_free_memory"]


def _load() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_trim = _load()


def release_free_memory() -> None:
    """Return the heap's free pages to the operating system, where the C library allows it."""
    if _trim is not None:
        _trim(0)
