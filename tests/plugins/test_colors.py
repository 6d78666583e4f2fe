"""Run colours: palette colours far apart, assigned by natural order, kept while a server runs."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

import tbkit
from tbkit.plugins.colors import PALETTE, ColorBook, assign_colors, natural_key, palette_color
from tbkit.server.app import create_app
from tests._colorspace import contrast, delta_e, min_delta_e, parse_hex

CARD_BACKGROUNDS = {"light": (255, 255, 255), "dark": (0x1F, 0x22, 0x27)}  # style.css --card-bg


def test_palette_colours_are_far_apart_and_readable_on_both_themes() -> None:
    rgb = [parse_hex(c) for c in PALETTE]
    assert len(set(PALETTE)) == len(PALETTE) == 12
    assert min_delta_e(rgb[:10]) >= 35  # the first ten: what ten runs get
    assert min_delta_e(rgb) >= 30
    for theme, background in CARD_BACKGROUNDS.items():
        worst = min(contrast(c, background) for c in rgb)
        assert worst >= 2.6, theme


def test_natural_order() -> None:
    names = ["run10", "run2", "run1", "b", "a10b", "a9b", "", "run02"]
    assert sorted(names, key=natural_key) == ["", "a9b", "a10b", "b", "run1", "run2", "run02", "run10"]


@pytest.mark.parametrize(
    "names",
    [
        [f"run{i}" for i in range(1, 11)],
        [f"seed{i}" for i in range(10)],
        [f"version_{i}" for i in range(10)],
        [f"lr=1e-{i}/seed{j}" for i in range(2) for j in range(5)],
    ],
)
def test_ten_runs_get_ten_colours_far_apart(names: list[str]) -> None:
    colors = assign_colors(names)
    assert set(colors) == set(names)
    assert len(set(colors.values())) == 10
    assert min_delta_e(parse_hex(c) for c in colors.values()) >= 35
    shuffled = names[:]
    random.Random(0).shuffle(shuffled)
    assert assign_colors(shuffled) == colors  # the order given does not matter


def test_palette_index_follows_natural_order() -> None:
    colors = assign_colors(f"run{i}" for i in range(1, 11))
    assert [colors[f"run{i}"] for i in range(1, 11)] == list(PALETTE[:10])


def test_beyond_the_palette_lightness_varies_and_colours_stay_distinct() -> None:
    n = len(PALETTE)
    colors = [palette_color(i) for i in range(4 * n)]
    assert len(set(colors)) == 4 * n
    for i in range(n, 4 * n):  # the same hue family as its base, but visibly apart from it
        assert delta_e(parse_hex(colors[i]), parse_hex(PALETTE[i % n])) > 8
    with pytest.raises(ValueError):
        palette_color(-1)


def test_book_keeps_colours_when_runs_appear() -> None:
    book = ColorBook()
    first = book.colors([f"run{i}" for i in range(1, 6)])
    assert first == assign_colors(first)  # a logdir that does not grow: the same as the stateless rule
    later = book.colors(["run0", *first, "run9"])  # run0 sorts first, but arrives later
    assert {k: later[k] for k in first} == first
    assert later["run0"] == PALETTE[5] and later["run9"] == PALETTE[6]
    assert len(set(later.values())) == 7


def test_book_gives_distinct_indices_under_threads() -> None:
    book = ColorBook()
    barrier = threading.Barrier(4)

    def ask(k: int) -> None:
        barrier.wait()
        for i in range(10):
            book.color(f"r{k}-{i}")

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(book.colors(f"r{k}-{i}" for k in range(4) for i in range(10)).values())) == 40


def _write(logdir: Path, run: str) -> None:
    with tbkit.SummaryWriter(str(logdir / run)) as w:
        w.add_scalar("loss", 1.0, 0)


def test_server_colours_are_distinct_and_stable_when_a_run_appears(tmp_path: Path) -> None:
    for i in range(1, 11):
        _write(tmp_path, f"run{i}")
    provider = tbkit.read(str(tmp_path)).provider
    client = create_app(provider).test_client()
    before = {r["name"]: r["color"] for r in client.get("/data/runs").json}
    assert before == assign_colors(before)
    _write(tmp_path, "run0")  # sorts before every other run
    provider.reload()
    after = {r["name"]: r["color"] for r in client.get("/data/runs").json}
    assert set(after) == {f"run{i}" for i in range(11)}
    assert {k: after[k] for k in before} == before
    assert after["run0"] == PALETTE[10]
    assert len(set(after.values())) == 11
