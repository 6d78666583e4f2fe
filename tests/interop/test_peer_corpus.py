"""tbkit's reader against damaged files, and against TensorBoard's own reader on real peers' files.

Two sets of logdirs:

* the bad-input corpus (``tests/reader/corpus.py``, generated here): tbkit must read every one
  without an exception, return every readable record, and report each bad spot (path, offset)
  in ``problems()``; the strict ``summary_iterator`` must raise ``DataError`` at the first bad
  spot or end quietly at a partial tail;
* the committed peer fixtures (``tests/interop/fixtures/<name>/``, written by TensorFlow,
  Keras, torch and tensorboardX): tbkit must read the same runs, tags, steps and values as
  TensorBoard's ``plugin_event_multiplexer`` (all data kept), kind by kind.

TensorBoard reads through its TensorFlow-free stub here (the ``tensorboard.compat.notf``
switch of its own build), so these tests never import TensorFlow.
"""

from __future__ import annotations

import collections
import math
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))

from tensorboard.backend.event_processing import plugin_event_multiplexer  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

import tbkit  # noqa: E402
from tbkit.errors import DataError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reader"))
import corpus  # noqa: E402

pytestmark = pytest.mark.interop

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_NAMES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and not p.name.startswith("_"))
CASE_NAMES = [
    "truncated_mid_header",
    "truncated_mid_payload",
    "bad_length_crc",
    "bad_data_crc",
    "flipped_payload",
    "not_an_event_payload",
    "empty",
    "header_only",
    "text_named_tfevents",
    "png_named_tfevents",
    "absurd_length",
    "unicode",
    "nonfinite",
    "out_of_order",
    "extreme_steps",
    "several_values",
    "float64_scalar",
    "damage_in_second_file",
    "no_header",
]


# -- helpers ---------------------------------------------------------------------------------------


def _abs(logdir: Path, path: str) -> str:
    p = Path(path)
    return str((p if p.is_absolute() else logdir / p).resolve())


def _problem_spots(logdir: Path, frame) -> set[tuple[str, int]]:
    return {(_abs(logdir, p), int(o)) for p, o in zip(frame["path"], frame["offset"], strict=True)}


def _scalar_rows(frame) -> collections.Counter:
    return collections.Counter(
        corpus.key(r, t, s, v)
        for r, t, s, v in zip(frame["run"], frame["tag"], frame["step"], frame["value"], strict=True)
    )


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, corpus.Case]:
    built = corpus.make_corpus(tmp_path_factory.mktemp("corpus"))
    assert sorted(c.name for c in built) == sorted(CASE_NAMES)
    return {c.name: c for c in built}


def _multiplexer(logdir: Path) -> plugin_event_multiplexer.EventMultiplexer:
    keep_all = {"tensors": 0, "graph": 0, "meta_graph": 0, "run_metadata": 0}
    mux = plugin_event_multiplexer.EventMultiplexer(size_guidance=keep_all, tensor_size_guidance={})
    mux.AddRunsFromDirectory(str(logdir))
    mux.Reload()
    return mux


def _tb_series(mux, plugin: str) -> dict[tuple[str, str], list]:
    """(run, tag) -> TensorBoard's TensorEvents for every tag of ``plugin``."""
    out = {}
    for run, tags in mux.PluginRunToTagToContent(plugin).items():
        for tag in tags:
            out[(run, tag)] = mux.Tensors(run, tag)
    return out


# -- the corpus ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASE_NAMES)
def test_corpus_reads_tolerantly(cases: dict[str, corpus.Case], name: str) -> None:
    case = cases[name]
    logdir = tbkit.read(str(case.logdir))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scalars = logdir.scalars()
        problems = logdir.problems()
    if case.problems:  # each corrupt record is skipped with a warning
        assert any(issubclass(w.category, RuntimeWarning) for w in caught)

    assert set(logdir.runs()["run"]) == case.runs
    got = _scalar_rows(scalars)
    required = collections.Counter(case.rows)
    assert not required - got, f"missing rows: {sorted(required - got, key=str)}"
    extra = got - required
    assert set(extra) <= case.optional_rows, f"rows nobody wrote: {sorted(extra, key=str)}"
    if len(scalars):
        assert scalars["value"].dtype == np.float64

    spots = _problem_spots(case.logdir, problems)
    must = {(_abs(case.logdir, p), o) for p, o in case.problems}
    may = {(_abs(case.logdir, p), o) for p, o in case.may_problems}
    assert must <= spots, f"unreported bad spots: {sorted(must - spots)}"
    assert spots <= must | may, f"problems at spots that are fine: {sorted(spots - must - may)}"
    assert all(isinstance(r, str) and r for r in problems["reason"])


@pytest.mark.parametrize("name", CASE_NAMES)
def test_corpus_strict_iterator(cases: dict[str, corpus.Case], name: str) -> None:
    for f in cases[name].files:
        yielded = 0
        if f.strict_error is None:
            for _ in tbkit.summary_iterator(str(f.path)):
                yielded += 1
        else:
            with pytest.raises(DataError) as info:
                for _ in tbkit.summary_iterator(str(f.path)):
                    yielded += 1
            assert info.value.offset == f.strict_error
            assert _abs(f.path.parent, info.value.path) == str(f.path.resolve())
        assert yielded == f.strict_events


# TensorBoard 2.21's EventMultiplexer.Reload() raises on these: a framed record that is not an
# Event, and a length (with a valid checksum) far past the end of the file.
TB_RAISES = {"not_an_event_payload", "absurd_length"}


@pytest.mark.parametrize("name", CASE_NAMES)
def test_corpus_scalars_versus_tensorboard(cases: dict[str, corpus.Case], name: str) -> None:
    case = cases[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = _scalar_rows(tbkit.read(str(case.logdir)).scalars())
    if name in TB_RAISES:
        # Deliberate difference: tbkit reads what it can and reports the spot instead.
        with pytest.raises(Exception):  # noqa: B017 - whatever TensorBoard raises
            _multiplexer(case.logdir)
        assert ours
        return
    mux = _multiplexer(case.logdir)
    theirs = collections.Counter(
        corpus.key(run, tag, e.step, tensor_util.make_ndarray(e.tensor_proto).item())
        for (run, tag), events in _tb_series(mux, "scalars").items()
        for e in events
    )
    if case.problems:
        # Deliberate difference: TensorBoard stops reading a file at its first corrupt record;
        # tbkit skips the record and goes on where the framing allows (DESIGN §5).
        assert not theirs - ours
        if name in ("bad_data_crc", "flipped_payload", "damage_in_second_file"):
            assert ours - theirs  # the records after the damaged one
    else:
        assert ours == theirs


def test_corpus_out_of_order_steps_keep_file_order(cases: dict[str, corpus.Case]) -> None:
    # TensorBoard (file_version 2) keeps out-of-order steps as written; so does tbkit.
    frame = tbkit.read(str(cases["out_of_order"].logdir)).scalars()
    assert list(frame["step"]) == [5, 3, 9, 1, 9]


def test_corpus_extreme_steps_are_exact(cases: dict[str, corpus.Case]) -> None:
    frame = tbkit.read(str(cases["extreme_steps"].logdir)).scalars()
    assert frame["step"].dtype == np.int64
    assert sorted(int(s) for s in frame["step"]) == [corpus.STEP_MIN, -1, 0, corpus.STEP_MAX]


def test_corpus_float64_scalars_are_not_rounded(cases: dict[str, corpus.Case]) -> None:
    # Deliberate difference: TensorBoard's Rust loader drops non-float32 scalars; tbkit keeps
    # DT_DOUBLE values exactly (and the Python EventAccumulator keeps them too).
    frame = tbkit.read(str(cases["float64_scalar"].logdir)).scalars()
    assert list(frame["value"]) == [1 / 3, 2 / 3]


# -- the peer fixtures against TensorBoard ---------------------------------------------------------


@pytest.fixture(scope="module")
def peers() -> dict[str, tuple]:
    return {name: (tbkit.read(str(FIXTURES / name)), _multiplexer(FIXTURES / name)) for name in FIXTURE_NAMES}


def test_fixtures_are_present_and_small() -> None:
    assert set(FIXTURE_NAMES) == {"keras", "tbx", "tf1", "tf2", "tf_rich", "torch"}
    total = sum(p.stat().st_size for p in FIXTURES.rglob("*tfevents*"))
    assert 0 < total < 2_000_000


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_runs_tags_and_no_problems(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    assert ours.problems().empty
    assert set(ours.runs()["run"]) == set(mux.Runs())
    tags = ours.tags()
    theirs = {
        (run, tag, plugin)
        for plugin in mux.ActivePlugins()
        for run, tag_map in mux.PluginRunToTagToContent(plugin).items()
        for tag in tag_map
    }
    assert set(zip(tags["run"], tags["tag"], tags["plugin"], strict=True)) == theirs


def _resumed_runs(name: str) -> set[str]:
    return {"resumed"} if name in ("torch", "tbx") else set()


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_scalars_match_tensorboard(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    frame = ours.scalars()
    assert frame["value"].dtype == np.float64
    series = _tb_series(mux, "scalars")
    assert set(zip(frame["run"], frame["tag"], strict=True)) == set(series)
    for (run, tag), events in series.items():
        if run in _resumed_runs(name):
            continue  # see test_purge_step_restart_differs_from_tensorboard
        mine = frame[(frame["run"] == run) & (frame["tag"] == tag)]
        want = [(e.step, e.wall_time, tensor_util.make_ndarray(e.tensor_proto).item()) for e in events]
        got = list(zip(mine["step"], mine["wall_time"], mine["value"], strict=True))
        # float32 values widen to float64 exactly, so plain equality is exact comparison.
        assert [(int(s), float(w), _nan(v)) for s, w, v in got] == [(s, w, _nan(v)) for s, w, v in want]


def _nan(value: float) -> object:
    return "nan" if math.isnan(value) else value


@pytest.mark.parametrize("name", ["torch", "tbx"])
def test_purge_step_restart_differs_from_tensorboard(peers: dict[str, tuple], name: str) -> None:
    # The second writer starts with SessionLog.START at step 3 (``purge_step=3``). tbkit applies
    # every START as a restart (DESIGN §4 "Restarts"): steps >= 3 of the first file are dropped.
    # TensorBoard's accumulator ignores the first START it sees in a run, so it keeps both.
    ours, mux = peers[name]
    frame = ours.scalars()
    mine = frame[frame["run"] == "resumed"]
    assert list(zip(mine["step"], mine["value"], strict=True)) == [
        (0, 0.0),
        (1, 1.0),
        (2, 2.0),
        (3, 13.0),
        (4, 14.0),
        (5, 15.0),
        (6, 16.0),
    ]
    theirs = [e.step for e in mux.Tensors("resumed", "loss")]
    assert theirs == [0, 1, 2, 3, 4, 5, 3, 4, 5, 6]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_histograms_match_tensorboard(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    series = _tb_series(mux, "histograms")
    frame = ours.histograms()
    assert set(zip(frame["run"], frame["tag"], strict=True)) == set(series)
    for (run, tag), events in series.items():
        mine = frame[(frame["run"] == run) & (frame["tag"] == tag)]
        assert [int(s) for s in mine["step"]] == [e.step for e in events]
        assert list(mine["wall_time"]) == [e.wall_time for e in events]
        for edges, counts, event in zip(mine["edges"], mine["counts"], events, strict=True):
            buckets = tensor_util.make_ndarray(event.tensor_proto)  # [k, 3]: left, right, count
            kind = buckets.dtype
            assert len(edges) == len(counts) + 1 == buckets.shape[0] + 1
            np.testing.assert_array_equal(np.asarray(edges[:-1]).astype(kind), buckets[:, 0])
            np.testing.assert_array_equal(np.asarray(edges[1:]).astype(kind), buckets[:, 1])
            np.testing.assert_array_equal(np.asarray(counts).astype(kind), buckets[:, 2])


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_images_match_tensorboard(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    series = _tb_series(mux, "images")
    frame = ours.images()
    assert set(zip(frame["run"], frame["tag"], strict=True)) == set(series)
    for (run, tag), events in series.items():
        mine = frame[(frame["run"] == run) & (frame["tag"] == tag)]
        want = []
        for e in events:
            blobs = tensor_util.make_ndarray(e.tensor_proto)  # [width, height, png, ...]
            width, height = int(blobs[0]), int(blobs[1])
            want += [(e.step, e.wall_time, i, width, height, bytes(b)) for i, b in enumerate(blobs[2:])]
        got = mine[["step", "wall_time", "index", "width", "height", "data"]].itertuples(index=False)
        assert [(int(s), w, int(i), int(wd), int(h), bytes(d)) for s, w, i, wd, h, d in got] == want


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_audio_match_tensorboard(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    series = _tb_series(mux, "audio")
    frame = ours.audio()
    assert set(zip(frame["run"], frame["tag"], strict=True)) == set(series)
    for (run, tag), events in series.items():
        mine = frame[(frame["run"] == run) & (frame["tag"] == tag)]
        want = []
        for e in events:
            clips = tensor_util.make_ndarray(e.tensor_proto)  # [k]: wav, or [k, 2]: wav, label
            if clips.ndim == 1:
                clips = np.stack([clips, np.full(clips.shape, b"", dtype=object)], axis=1)
            want += [(e.step, e.wall_time, i, bytes(c[0]), c[1].decode()) for i, c in enumerate(clips)]
        got = zip(mine["step"], mine["wall_time"], mine["index"], mine["data"], mine["label"], strict=True)
        assert [(int(s), w, int(i), bytes(d), str(lab)) for s, w, i, d, lab in got] == want


def _flat_text(value: object) -> tuple[list[str], tuple[int, ...] | None]:
    """Strings of a text cell, flat, and its shape (None for a plain str)."""
    if isinstance(value, str | bytes):
        return [value.decode() if isinstance(value, bytes) else value], None
    array = np.asarray(value)
    return [x.decode() if isinstance(x, bytes) else str(x) for x in array.reshape(-1)], array.shape


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_text_matches_tensorboard(peers: dict[str, tuple], name: str) -> None:
    ours, mux = peers[name]
    series = _tb_series(mux, "text")
    frame = ours.text()
    assert set(zip(frame["run"], frame["tag"], strict=True)) == set(series)
    for (run, tag), events in series.items():
        mine = frame[(frame["run"] == run) & (frame["tag"] == tag)]
        assert [int(s) for s in mine["step"]] == [e.step for e in events]
        for value, event in zip(mine["text"], events, strict=True):
            strings = tensor_util.make_ndarray(event.tensor_proto)
            flat, shape = _flat_text(value)
            assert flat == [x.decode() for x in strings.reshape(-1)]
            assert shape is None or shape == strings.shape


# -- reader bugs fixed (each test failed before its fix) ------------------------------------------


def test_reload_reports_a_bad_record_appended_later(tmp_path: Path) -> None:
    path = tmp_path / corpus.FILE
    good = corpus.frame(corpus.header_event().SerializeToString())
    path.write_bytes(good)
    logdir = tbkit.read(str(tmp_path))
    assert logdir.problems().empty
    summary = corpus.summary_pb2.Summary(value=[corpus.scalar_value("loss", 1.0)])
    record = corpus.frame(corpus.event_pb2.Event(step=1, summary=summary).SerializeToString())
    with path.open("ab") as f:
        f.write(corpus.bad_data_crc(record))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        logdir.reload()
        assert _problem_spots(tmp_path, logdir.problems()) == {(str(path.resolve()), len(good))}
