"""Compact scalar storage: lossless round trips, its size, and listings that never decode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tbkit
from tbkit.provider import DataClass, RunTagFilter
from tbkit.reader.compact import CompactBlock
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.reader.series import SeriesData, SeriesMeta

SCALAR = SeriesMeta("scalars", DataClass.SCALAR)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and np.array_equal(a.view(np.int64), b.view(np.int64))


def _check_roundtrip(steps, walls, values) -> CompactBlock:
    steps = np.asarray(steps, dtype=np.int64)
    walls = np.asarray(walls, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    block = CompactBlock.encode(steps, walls, values)
    got_steps, got_walls, got_values = block.decode()
    assert got_steps.dtype == np.int64 and np.array_equal(got_steps, steps)
    assert _same_bits(got_walls, walls)
    assert _same_bits(got_values, values)
    assert block.n == len(steps)
    return block


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-(2**63), 2**63 - 1),
            st.floats(allow_nan=True, allow_infinity=True, width=64),
            st.floats(allow_nan=True, allow_infinity=True, width=64),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_any_points_round_trip_bit_for_bit(points):
    steps, walls, values = zip(*points, strict=True)
    _check_roundtrip(steps, walls, values)


def test_a_typical_series_takes_eight_bytes_a_point():
    n = 20_000
    steps = np.arange(n) * 5 + 100
    walls = 1.79e9 + np.cumsum(np.random.default_rng(0).uniform(0.001, 2.0, n))
    values = np.random.default_rng(1).standard_normal(n).astype(np.float32).astype(np.float64)
    block = _check_roundtrip(steps, walls, values)
    assert block.step_deltas is None and block.step_stride == 5
    assert block.values.dtype == np.float32 and block.wall_deltas.dtype == np.int32
    assert block.nbytes == 8 * n - 4  # the first wall time is kept whole, outside the arrays


def test_wide_columns_fall_back_to_exact_wide_storage():
    steps = [0, 3, 2**40, 5]  # a jump beyond int32, and back
    walls = [1.0e9, 1.0e9 + 1e6, 1.0e9 + 2e6, 1.0e9 + 3e6]  # gaps beyond int32 units in the last place
    values = [0.1, 1e300, np.nan, -np.inf]  # not float32
    block = _check_roundtrip(steps, walls, values)
    assert block.step_deltas is not None and block.step_deltas.dtype == np.int64
    assert block.wall_deltas.dtype == np.int64 and block.values.dtype == np.float64


def test_compact_series_reads_like_a_plain_one():
    rng = np.random.default_rng(2)
    plain, compact = SeriesData("t", SCALAR), SeriesData("t", SCALAR, compact=True)
    for lo in (0, 50, 120):
        steps = np.arange(lo, lo + 50 + lo % 7, dtype=np.int64)
        walls = 1e9 + steps * 0.5
        values = rng.standard_normal(len(steps))
        for s in (plain, compact):
            s.add_block(steps, walls, values)
    compact.add(500, 2e9, 0.5)
    plain.add(500, 2e9, 0.5)
    assert isinstance(compact._blocks[0], CompactBlock)
    for a, b in zip(plain.columns(), compact.columns(), strict=True):
        assert np.array_equal(a, b)
    assert len(compact) == len(plain) and compact.last() == plain.last() == (500, 2e9, 0.5)
    assert compact.extent() == plain.extent() == (500, 2e9)
    assert compact.purge_from(60) == plain.purge_from(60)
    for a, b in zip(plain.columns(), compact.columns(), strict=True):
        assert np.array_equal(a, b)
    assert compact.extent() == (59, 1e9 + 59 * 0.5) and len(compact) == 60


@pytest.fixture
def logdir(tmp_path):
    for run in ("a", "b"):
        with tbkit.SummaryWriter(str(tmp_path / run)) as w:
            for step in range(300):
                w.add_scalar("loss", 1.0 / (step + 1), step)
                w.add_scalar("acc", step / 300, step)
            w.add_text("note", "hello", 0)
    return tmp_path


def test_listings_come_from_kept_facts_without_decoding(logdir, monkeypatch):
    index = LogdirIndex(str(logdir), compact=True)
    provider = LogdirProvider(index)
    index.reload()
    plain = LogdirProvider(LogdirIndex(str(logdir)))

    def refuse(self):
        raise AssertionError("a listing decoded a series")

    expected = plain.list_scalars("scalars")
    last = plain.read_last_scalars("scalars")
    monkeypatch.setattr(CompactBlock, "decode", refuse)
    assert provider.list_scalars("scalars") == expected
    assert provider.read_last_scalars("scalars") == last
    assert provider.list_plugins() == plain.list_plugins()
    assert provider.list_tensors("text") == plain.list_tensors("text")


def test_reads_decode_only_the_series_asked_for(logdir, monkeypatch):
    provider = MultiLogdirProvider([("", str(logdir))])
    provider.reload()
    decoded = []
    original = CompactBlock.decode

    def counting(self):
        decoded.append(self.n)
        return original(self)

    monkeypatch.setattr(CompactBlock, "decode", counting)
    out = provider.read_scalars("scalars", run_tag_filter=RunTagFilter(runs=["b"], tags=["loss"]))
    assert list(out) == ["b"] and list(out["b"]) == ["loss"]
    assert [p.value for p in out["b"]["loss"]] == pytest.approx([1.0 / (s + 1) for s in range(300)])
    assert sum(decoded) == 300  # one series' points, not the logdir's
    assert provider.list_scalars("scalars")["a"]["acc"].max_step == 299


def test_series_info_keeps_only_what_is_asked_for(logdir):
    provider = MultiLogdirProvider([("", str(logdir))])
    provider.reload()
    infos = provider.series_info(DataClass.SCALAR, "scalars", lambda run, tag: run == "a" and tag == "acc")
    assert [(i.run, i.tag, i.count, i.max_step) for i in infos] == [("a", "acc", 300, 299)]
    assert infos[0].last == (299, infos[0].max_wall_time, pytest.approx(299 / 300))
