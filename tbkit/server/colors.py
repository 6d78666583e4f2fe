"""Run colours: a deterministic colour per run name, the same in every dashboard.

The rule (documented in ``docs/http_api.md`` so the UI can repeat it): hue = 32-bit
FNV-1a of the name's UTF-8 bytes modulo 360, then ``hsl(hue, 70%, 45%)`` as ``#rrggbb``.

Example:
    >>> run_color("train") == run_color("train")
    True
"""

from __future__ import annotations

import colorsys

__all__ = ["fnv1a32", "run_color"]

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


def run_color(name: str) -> str:
    """The colour of run ``name`` as ``#rrggbb``."""
    hue = fnv1a32(name.encode("utf-8")) % 360
    r, g, b = colorsys.hls_to_rgb(hue / 360.0, _LIGHTNESS, _SATURATION)
    return "#" + "".join(f"{int(255 * c + 0.5):02x}" for c in (r, g, b))
