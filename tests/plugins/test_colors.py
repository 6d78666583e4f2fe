"""Run colours: the documented rule, spread over hues (served by ``/data/runs`` and every dashboard)."""

from __future__ import annotations

import colorsys

from tbkit.plugins.colors import fnv1a32, run_color


def test_run_colour_rule_matches_the_documented_formula() -> None:
    for name in ["train", "eval", "", "ü/ß", "a" * 100]:
        h = 0x811C9DC5
        for byte in name.encode("utf-8"):
            h = ((h ^ byte) * 16777619) % 2**32
        assert fnv1a32(name.encode("utf-8")) == h
        h ^= h >> 16
        h = (h * 0x85EBCA6B) % 2**32
        h ^= h >> 13
        h = (h * 0xC2B2AE35) % 2**32
        h ^= h >> 16
        rgb = colorsys.hls_to_rgb((h % 360) / 360, 0.45, 0.70)
        assert run_color(name) == "#" + "".join(f"{int(255 * c + 0.5):02x}" for c in rgb)
    assert len({run_color(f"run{i}") for i in range(50)}) > 30  # names spread over hues
    similar = {run_color(f"run_0{i}") for i in range(10)}  # names differing in their last character only
    assert len(similar) >= 8
