"""The histograms frame built column by column (``decode.frame_columns``) equals the frame built
point by point (``decode.rows``): the same columns, dtypes, values and row order, for legacy and
tensor-form series, empty and one-bucket histograms, in one frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tbkit
from tbkit.plugins import registry
from tbkit.plugins._frames import kind_frame
from tbkit.plugins.histograms import decode
from tbkit.plugins.histograms.summary import histogram_pb
from tbkit.provider import InMemoryProvider

RNG = np.random.default_rng(5)
PLUGIN = registry.plugins()["histograms"]


def _point_by_point(provider: object, monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    """The frame as built before ``frame_columns``: each point's ``rows``."""
    with monkeypatch.context() as patch:
        patch.delattr(decode, "frame_columns")
        return kind_frame(provider, PLUGIN)  # type: ignore[arg-type]


def _assert_same(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    assert (
        list(ours.columns) == list(theirs.columns) == ["run", "tag", "step", "wall_time", "edges", "counts"]
    )
    assert list(ours.dtypes) == list(theirs.dtypes)
    pd.testing.assert_frame_equal(ours.iloc[:, :4], theirs.iloc[:, :4])
    for name in ("edges", "counts"):
        for a, b in zip(ours[name], theirs[name], strict=True):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype == np.float64
            assert a.shape == b.shape
            np.testing.assert_array_equal(a, b)


@pytest.fixture(scope="module")
def mixed_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Two runs: legacy histograms (one of them empty at a step, one a single bucket) and a
    tensor-form series; run names written in the opposite of their sorted order."""
    root = tmp_path_factory.mktemp("mixed")
    for run in ("zeta", "alpha"):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(4):
                w.add_histogram("legacy/normal", RNG.normal(size=60), step)
                w.add_histogram(
                    "legacy/sometimes_empty", np.zeros(0) if step % 2 else RNG.normal(size=5), step
                )
                w.add_histogram("legacy/one_bucket", np.array([2.0, 2.0]), step, bins=1)
                k = step + 1 if step < 3 else 0  # the last tensor-form point is empty
                buckets = np.column_stack([np.arange(k), np.arange(k) + 0.5, RNG.integers(0, 9, k)])
                w.add_summary(histogram_pb("tensor/form", buckets.astype(np.float64)), step, 100.0 + step)
    return str(root)


def test_a_logdir_frame_of_legacy_and_tensor_form_series_equals_the_point_by_point_frame(
    mixed_logdir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ld = tbkit.read(mixed_logdir)
    ours = ld.histograms()
    theirs = _point_by_point(ld.provider, monkeypatch)
    _assert_same(ours, theirs)
    assert len({id(c.base) for c in ours["counts"] if len(c)}) == 1  # built column by column
    assert ours["run"].cat.categories.tolist() == ["alpha", "zeta"]
    assert set(ours["tag"]) == {"legacy/normal", "legacy/sometimes_empty", "legacy/one_bucket", "tensor/form"}
    sizes = {len(c) for c in ours["counts"]}
    assert 0 in sizes and 1 in sizes and max(sizes) > 1
    empty = ours[ours["counts"].map(len) == 0]
    assert len(empty) and all(len(e) == 0 for e in empty["edges"])
    one = ours[ours["tag"] == "legacy/one_bucket"].iloc[0]
    assert one["edges"].tolist() == [2.0, 2.0] and one["counts"].tolist() == [2.0]


def test_a_frame_read_after_scalars_equals_the_point_by_point_frame(
    mixed_logdir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ld = tbkit.read(mixed_logdir)
    ld.scalars()  # the histograms are passed over, then read again
    _assert_same(ld.histograms(), _point_by_point(ld.provider, monkeypatch))


def test_cells_are_views_of_one_fresh_block_per_column_not_of_the_stored_points() -> None:
    stored = [RNG.random((4, 3)), np.zeros((0, 3)), RNG.random((1, 3)), RNG.random((7, 3))]
    cells = decode.frame_columns(stored)
    assert cells is not None
    for name in ("edges", "counts"):
        filled = [c for c in cells[name] if len(c)]
        assert len({id(c.base) for c in filled}) == 1  # one block
        assert not any(np.shares_memory(c, s) for c in cells[name] for s in stored)
    cells["counts"][0][:] = -1.0  # writing a cell leaves the stored point as it was
    assert (stored[0][:, 2] >= 0).all()


def test_frame_columns_match_rows_point_for_point() -> None:
    stored = [np.zeros((0, 3)), np.array([[1.0, 2.0, 3.0]]), RNG.random((5, 3)), np.zeros((0, 3))]
    cells = decode.frame_columns(stored)
    assert cells is not None
    for i, value in enumerate(stored):
        (row,) = decode.rows(value)
        for name in ("edges", "counts"):
            assert cells[name][i].dtype == row[name].dtype
            np.testing.assert_array_equal(cells[name][i], row[name])
    assert cells["edges"][1].tolist() == [1.0, 2.0]


def test_only_empty_histograms() -> None:
    cells = decode.frame_columns([np.zeros((0, 3)), np.zeros((0, 3))])
    assert cells is not None
    assert [c.shape for c in cells["edges"]] == [(0,), (0,)] == [c.shape for c in cells["counts"]]


@pytest.mark.parametrize(
    "odd",
    [
        np.ones((2, 3), dtype=np.float16),
        np.ones((2, 3), dtype=np.int64),
        np.ones(3),
        np.ones((2, 4)),
        [[1.0, 2.0, 3.0]],
    ],
    ids=["float16", "int64", "1-d", "four-columns", "list"],
)
def test_a_point_not_float_buckets_leaves_the_rows_point_by_point(odd: object) -> None:
    assert decode.frame_columns([np.ones((2, 3)), odd]) is None  # type: ignore[list-item]


def test_a_provider_holding_other_arrays_gets_the_point_by_point_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points = [(0, 1.0, np.array([[0, 1, 2], [1, 2, 3]], dtype=np.int64)), (1, 2.0, np.ones((1, 3)))]
    provider = InMemoryProvider({"r": {"h": {"plugin": "histograms", "points": points}}})
    ours = kind_frame(provider, PLUGIN)
    assert ours["counts"].iloc[0].dtype == np.float64  # rows() gives float64 cells of any stored dtype
    assert ours["counts"].iloc[0].tolist() == [2.0, 3.0]
    theirs = _point_by_point(provider, monkeypatch)
    pd.testing.assert_frame_equal(ours.iloc[:, :4], theirs.iloc[:, :4])
    for a, b in zip(ours["counts"], theirs["counts"], strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()


def test_an_in_memory_provider_frame_in_run_then_tag_order(monkeypatch: pytest.MonkeyPatch) -> None:
    def series(n: int) -> list[tuple[int, float, np.ndarray]]:
        return [(s, float(s), RNG.random((s % 3, 3))) for s in range(n)]

    data = {
        "b": {
            "y": {"plugin": "histograms", "points": series(3)},
            "x": {"plugin": "histograms", "points": series(2)},
        },
        "a": {"x": {"plugin": "histograms", "points": series(4)}},
    }
    provider = InMemoryProvider(data)
    ours = kind_frame(provider, PLUGIN)
    _assert_same(ours, _point_by_point(provider, monkeypatch))
    order = [r.run_name for r in provider.list_runs()]
    assert ours["run"].tolist() == [
        run for run in order for _ in range(sum(len(t["points"]) for t in data[run].values()))
    ]
    assert ours["step"].dtype == np.int64 and ours["wall_time"].dtype == np.float64


def test_an_empty_provider_gives_the_empty_frame() -> None:
    frame = kind_frame(InMemoryProvider({}), PLUGIN)
    assert (
        frame.columns.tolist() == ["run", "tag", "step", "wall_time", "edges", "counts"] and len(frame) == 0
    )


def test_points_past_a_block_go_to_the_next_and_a_big_point_gets_blocks_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tbkit.plugins.histograms import columns

    monkeypatch.setattr(columns, "BLOCK", 10)
    stored = [
        RNG.random((3, 3)),
        RNG.random((4, 3)),
        np.zeros((0, 3)),
        RNG.random((20, 3)),
        RNG.random((2, 3)),
    ]
    cells = decode.frame_columns(stored)
    assert cells is not None
    bases = [id(c.base) for c in cells["counts"]]
    assert (
        bases[0] == bases[1] == bases[2] and len({bases[1], bases[3], bases[4]}) == 3
    )  # edges 4 + 5 + 1 fit in 10
    assert columns._groups([len(v) for v in stored]) == [(0, 3), (3, 4), (4, 5)]
    for i, value in enumerate(stored):
        (row,) = decode.rows(value)
        np.testing.assert_array_equal(cells["edges"][i], row["edges"])
        np.testing.assert_array_equal(cells["counts"][i], row["counts"])
        assert cells["edges"][i].dtype == cells["counts"][i].dtype == np.float64


def test_float32_points_give_the_float64_cells_of_their_rows() -> None:
    """The reader stores migrated legacy histograms as float32: their cells are widened."""
    stored = [
        np.array([[0.1, 0.2, 3.0], [0.2, 0.7, 1.0]], dtype=np.float32),
        np.zeros((0, 3), dtype=np.float32),
        np.array([[-1.5, 2.5, 4.0]]),
    ]
    cells = decode.frame_columns(stored)
    assert cells is not None
    for i, value in enumerate(stored):
        (row,) = decode.rows(value)
        assert cells["edges"][i].dtype == row["edges"].dtype == np.float64
        assert cells["counts"][i].dtype == row["counts"].dtype == np.float64
        assert cells["edges"][i].tolist() == row["edges"].tolist()
        assert cells["counts"][i].tolist() == row["counts"].tolist()
    assert cells["edges"][0].tolist() == [float(np.float32(v)) for v in (0.1, 0.2, 0.7)]


def test_no_point_gives_no_cells() -> None:
    assert decode.frame_columns([]) == {"edges": [], "counts": []}


def test_a_strided_point_the_core_refuses_is_filled_in_numpy() -> None:
    base = np.arange(24, dtype=np.float64).reshape(8, 3)
    stored = [base[::2], base[1:3]]  # every other bucket: float64 [4, 3], not C-contiguous
    cells = decode.frame_columns(stored)
    assert cells is not None
    for i, value in enumerate(stored):
        (row,) = decode.rows(value)
        assert cells["edges"][i].tolist() == row["edges"].tolist()
        assert cells["counts"][i].tolist() == row["counts"].tolist()
