"""Run colours: distinct palette colours, assigned the same way in every dashboard and report.

A leaf module (no Flask, no tbkit import): the server's ``/data/runs``, the plugins' routes
(through :mod:`tbkit.plugins.web`), ``tbkit report`` and the notebook's ``plot`` all colour
runs from :data:`PALETTE`.

The rule (documented in ``docs/http_api.md`` so the UI can repeat it):

* The names are put in natural order (:func:`natural_key`: ``run2`` before ``run10``) and
  given palette indices by position, so the runs of one logdir never share a colour while
  the palette lasts (:func:`assign_colors`).
* A server keeps a :class:`ColorBook` for its lifetime: the runs present at its first
  answer get their indices in natural order, a run appearing later takes the next free
  index, so an existing run never changes colour while the server runs. For a logdir that
  does not grow, this is the same answer as :func:`assign_colors`.
* Index ``i`` is ``PALETTE[i % 12]`` with its lightness shifted for every further round
  through the palette (:func:`palette_color`).

Example:
    >>> assign_colors(["run10", "run2"]) == {"run2": PALETTE[0], "run10": PALETTE[1]}
    True
"""

from __future__ import annotations

import colorsys
import re
import threading
from collections.abc import Iterable

__all__ = ["PALETTE", "ColorBook", "assign_colors", "natural_key", "palette_color"]

# Twelve colours, each with a contrast of at least 2.6:1 against both card backgrounds
# (#ffffff and the dark theme's #1f2227) and a chroma between 0.10 and 0.19 in OKLab (no
# greys, no neon). Ordered by farthest-point selection in CIELAB, so every prefix is spread
# out: the first 10 are at least ΔE76 36 apart, all 12 at least 34 (tests/plugins/test_colors.py).
PALETTE: tuple[str, ...] = (
    "#1e78e1",  # blue
    "#5aa500",  # green
    "#c32d2d",  # red
    "#00a5a5",  # teal
    "#e169b4",  # pink
    "#c38700",  # ochre
    "#5a691e",  # olive
    "#d28769",  # salmon
    "#006996",  # petrol
    "#00b469",  # emerald
    "#874bc3",  # purple
    "#f0690f",  # orange
)

_LIGHTNESS_STEP = 0.12  # HLS lightness shift per round through the palette beyond the first
_HUE_STEP = 0.02  # and a small hue turn per round, so far rounds (clipped lightness) stay distinct
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that orders the digit runs in ``name`` by value: ``run2`` before ``run10``.

    Example:
        >>> sorted(["run10", "run2", "run1"], key=natural_key)
        ['run1', 'run2', 'run10']
    """
    parts = _DIGITS.split(name)
    return tuple((1, int(p)) if i % 2 else (0, p) for i, p in enumerate(parts))


def palette_color(index: int) -> str:
    """The colour of palette position ``index`` (any index ``>= 0``) as ``#rrggbb``.

    The first ``len(PALETTE)`` indices are the palette; each later round through it is the
    palette again, darker on odd rounds and lighter on even ones, further each time, with
    the hue turned a little more each round.

    Example:
        >>> palette_color(0) == PALETTE[0]
        True
        >>> palette_color(len(PALETTE)) != PALETTE[0]
        True
    """
    if index < 0:
        raise ValueError(f"a palette index is >= 0, got {index}")
    base = PALETTE[index % len(PALETTE)]
    rounds = index // len(PALETTE)
    if rounds == 0:
        return base
    shift = _LIGHTNESS_STEP * ((rounds + 1) // 2) * (-1 if rounds % 2 else 1)
    r, g, b = (int(base[i : i + 2], 16) / 255.0 for i in (1, 3, 5))
    h, lightness, s = colorsys.rgb_to_hls(r, g, b)
    lightness = min(0.82, max(0.22, lightness + shift))
    rgb = colorsys.hls_to_rgb((h + _HUE_STEP * rounds) % 1.0, lightness, s)
    return "#" + "".join(f"{int(255 * c + 0.5):02x}" for c in rgb)


def assign_colors(names: Iterable[str]) -> dict[str, str]:
    """Colours for ``names`` shown together: palette indices by position in natural order.

    Example:
        >>> colors = assign_colors(f"seed{i}" for i in range(10))
        >>> len(set(colors.values()))
        10
    """
    ordered = sorted(set(names), key=natural_key)
    return {name: palette_color(i) for i, name in enumerate(ordered)}


class ColorBook:
    """Palette indices handed out over a server's lifetime: a name keeps its colour.

    Names not seen before take the next free indices, in natural order among themselves.
    Thread-safe (the server answers requests on several threads).

    Example:
        >>> book = ColorBook()
        >>> first = book.colors(["b", "a"])
        >>> book.colors(["a", "b", "0-new"])["a"] == first["a"] == PALETTE[0]
        True
    """

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._lock = threading.Lock()

    def colors(self, names: Iterable[str]) -> dict[str, str]:
        """The colours of ``names``, giving indices to the names not seen before."""
        wanted = list(dict.fromkeys(names))
        with self._lock:
            new = sorted((n for n in wanted if n not in self._index), key=natural_key)
            for name in new:
                self._index[name] = len(self._index)
            return {name: palette_color(self._index[name]) for name in wanted}

    def color(self, name: str) -> str:
        """The colour of one name (a new one takes the next free index)."""
        return self.colors([name])[name]
