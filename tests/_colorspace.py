"""CIELAB (D65) from sRGB, the ΔE76 distance and WCAG contrast: for tests that check colours apart."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

RGB = Sequence[float]


def parse_hex(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` as an (r, g, b) tuple of 0–255 ints."""
    assert len(color) == 7 and color[0] == "#", color
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _linear(c: float) -> float:
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(rgb: RGB) -> float:
    """WCAG relative luminance of an sRGB colour."""
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG contrast ratio of two sRGB colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def lab(rgb: RGB) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB colour."""
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: RGB, b: RGB) -> float:
    """CIE76 ΔE: the Euclidean distance in CIELAB (about 2.3 is just noticeable)."""
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5


def min_delta_e(colors: Iterable[RGB]) -> float:
    """The smallest pairwise ΔE76 among ``colors`` (at least two)."""
    return min(delta_e(a, b) for a, b in itertools.combinations(list(colors), 2))


def lab_array(rgb: np.ndarray) -> np.ndarray:
    """CIELAB of an ``(..., 3)`` array of 0–255 sRGB values."""

    c = np.asarray(rgb, dtype=np.float64) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    return np.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], axis=-1)


def nearest_delta_e(pixels: np.ndarray, color: RGB) -> float:
    """The ΔE76 from ``color`` to the nearest of ``pixels`` (an ``(..., 3)`` sRGB array)."""

    d = lab_array(pixels).reshape(-1, 3) - np.array(lab(color))
    return float(np.sqrt((d**2).sum(axis=1)).min())
