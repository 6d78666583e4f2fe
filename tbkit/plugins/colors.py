"""Run colours: a deterministic colour per run name, the same in every dashboard and report.

A leaf module (no Flask, no tbkit import): the server's ``/data/runs``, the plugins' routes
(through :mod:`tbkit.plugins.web`) and ``tbkit report`` all colour runs with :func:`run_color`.

The rule (documented in ``docs/http_api.md`` so the UI can repeat it): the 32-bit FNV-1a
hash of the name's UTF-8 bytes, mixed by MurmurHash3's finaliser (so names differing in
their last character get far-apart hues), modulo 360 is the hue; then
``hsl(hue, 70%, 45%)`` as ``#rrggbb``.

Example:
    >>> run_color("train") == run_color("train")
    True
"""

from __future__ import annotations

import colorsys

__all__ = ["fmix32", "fnv1a32", "run_color"]

_SATURATION = 0.70
_LIGHTNESS = 0.45


def fnv1a32(data: bytes) -> int:
    """The 32-bit FNV-1a hash of ``data``.

    Example:
        >>> hex(fnv1a32(b"a"))
        '0xe40c292c'
    """
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def fmix32(h: int) -> int:
    """MurmurHash3's 32-bit finaliser: every input bit affects every output bit.

    Example:
        >>> fmix32(0)
        0
    """
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def run_color(name: str) -> str:
    """The colour of run ``name`` as ``#rrggbb``."""
    hue = fmix32(fnv1a32(name.encode("utf-8"))) % 360
    r, g, b = colorsys.hls_to_rgb(hue / 360.0, _LIGHTNESS, _SATURATION)
    return "#" + "".join(f"{int(255 * c + 0.5):02x}" for c in (r, g, b))
