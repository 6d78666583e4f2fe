"""The real ``tensorboard`` server (its default fast Rust loader) serving runs written by tbkit.

One logdir holds a tbkit run and a ``torch.utils.tensorboard`` run that make the same calls,
restarted runs from both, and a run written by two tbkit writers at once. One server is
started for the whole module; every check queries its HTTP data API and compares what it
serves with what was logged, and tbkit's run with torch's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _peers import decode_png, decode_wav, pcm16
from _same_calls import (
    AUDIO_RATE,
    HIST_EDGES,
    MULTI,
    RESTARTED_EXPECTED,
    SCALARS,
    TEXT,
    WALL0,
    batch_nchw,
    hist_values,
    images,
    make_calls,
    sine,
    write_restarted_run,
    write_restarted_run_torch,
)
from _tensorboard import Server, running_tensorboard
from tensorboard import plugin_util

import tbkit

pytestmark = [pytest.mark.slow, pytest.mark.interop]

PEERS = ("tbkit", "torch")
TWIN_STEPS = 300
SPECIAL = [math.nan, math.inf, -math.inf, 0.1 + 1e-12]


def _write_logdir(logdir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with tbkit.SummaryWriter(logdir / "tbkit") as writer:
        make_calls(writer)
    torch_writer = TorchWriter(str(logdir / "torch"))
    make_calls(torch_writer)
    torch_writer.close()
    write_restarted_run(logdir / "purge_tbkit")
    write_restarted_run_torch(logdir / "purge_torch")
    first, second = tbkit.SummaryWriter(logdir / "twins"), tbkit.SummaryWriter(logdir / "twins")
    for step in range(TWIN_STEPS):
        first.add_scalar("first", step, step)
        second.add_scalar("second", -step, step)
    first.close()
    second.close()
    with tbkit.SummaryWriter(logdir / "special") as writer, pytest.warns(UserWarning, match="float64"):
        for step, value in enumerate(SPECIAL):
            writer.add_scalar("f32", value, step, walltime=WALL0)
            # double_precision alone is ignored, as in torch: a float32 simple_value again
            writer.add_scalar("f32_dp", value, step, walltime=WALL0, double_precision=True)
            writer.add_scalar("f64", value, step, walltime=WALL0, new_style=True, double_precision=True)


EXPECTED_RUNS = {
    *PEERS,
    *(f"{peer}/multi_{key}" for peer in PEERS for key in MULTI),
    "purge_tbkit",
    "purge_torch",
    "twins",
    "special",
}


def _loaded(server: Server) -> bool:
    """Everything written is served (the Rust loader fills its index in the background)."""
    if set(server.json("/data/runs")) != EXPECTED_RUNS:
        return False
    for peer in PEERS:
        tag = "notes/md/text_summary"  # torch's tag, for tbkit's run as for torch's
        if len(server.json("/data/plugin/text/text", run=peer, tag=tag)) != len(TEXT["notes/md"]):
            return False
        if len(server.json("/data/plugin/audio/audio", run=peer, tag="audio/sine")) != 1:
            return False
    for run in ("purge_tbkit", "purge_torch"):
        if len(server.json("/data/plugin/scalars/scalars", run=run, tag="loss")) != len(RESTARTED_EXPECTED):
            return False
    tags = server.json("/data/plugin/scalars/tags")
    return set(tags.get("twins", {})) == {"first", "second"} and "f32" in tags.get("special", {})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("tensorboard")
    logdir = base / "logdir"
    _write_logdir(logdir)
    log = base / "tensorboard.log"
    with running_tensorboard(logdir, log, _loaded) as served:
        yield served


# -- the server itself -------------------------------------------------------------------


def test_served_by_the_fast_loader(server: Server) -> None:
    env = server.json("/data/environment")
    assert env["data_location"] == str(server.logdir)
    assert env["debug"]["data_provider"].startswith("GrpcDataProvider")  # the Rust data server
    assert set(server.json("/data/runs")) == EXPECTED_RUNS


def test_plugins_listing(server: Server) -> None:
    listing = server.json("/data/plugins_listing")
    for plugin in ("scalars", "histograms", "distributions", "images", "audio", "text"):
        assert listing[plugin]["enabled"] is True, plugin


# -- scalars -----------------------------------------------------------------------------


def _scalars(server: Server, run: str, tag: str) -> list[tuple[float, int, float]]:
    return [(w, s, float(v)) for w, s, v in server.json("/data/plugin/scalars/scalars", run=run, tag=tag)]


@pytest.mark.parametrize("peer", PEERS)
def test_scalars(server: Server, peer: str) -> None:
    tags = server.json("/data/plugin/scalars/tags")
    assert set(tags[peer]) == set(SCALARS)
    for tag, values in SCALARS.items():
        expected = [(WALL0 + i, i, float(np.float32(v))) for i, v in enumerate(values)]
        assert _scalars(server, peer, tag) == expected
    for key, values in MULTI.items():
        assert set(tags[f"{peer}/multi_{key}"]) == {"multi"}
        expected = [(WALL0 + i, i, v) for i, v in enumerate(values)]
        assert _scalars(server, f"{peer}/multi_{key}", "multi") == expected


def test_scalars_same_as_torch(server: Server) -> None:
    tags = server.json("/data/plugin/scalars/tags")
    for run in ("", "/multi_train", "/multi_val"):
        assert set(tags[f"tbkit{run}"]) == set(tags[f"torch{run}"])
        for tag in tags[f"tbkit{run}"]:
            assert _scalars(server, f"tbkit{run}", tag) == _scalars(server, f"torch{run}", tag)


def test_non_finite_and_double_scalars(server: Server) -> None:
    for tag in ("f32", "f32_dp"):
        values = [v for _, _, v in _scalars(server, "special", tag)]
        assert math.isnan(values[0]) and values[1:3] == [math.inf, -math.inf], tag
        assert values[3] == float(np.float32(SPECIAL[3])), tag
    # TensorBoard 2.21's Rust loader serves only DT_FLOAT scalars: new_style double_precision ones
    # (tbkit's as torch's) are left out of the scalars plugin; the Python loader (--load_fast=false)
    # has them.
    assert set(server.json("/data/plugin/scalars/tags")["special"]) == {"f32", "f32_dp"}


def test_restart_purges_like_torch(server: Server) -> None:
    # The Rust loader purges on every SessionLog.START: data before the restart at step >= 5 goes.
    for run in ("purge_tbkit", "purge_torch"):
        assert [(s, v) for _, s, v in _scalars(server, run, "loss")] == RESTARTED_EXPECTED
    # It leaves the text written before the restart in place, for torch's run as for tbkit's.
    ours = server.json("/data/plugin/text/text", run="purge_tbkit", tag="note/text_summary")
    theirs = server.json("/data/plugin/text/text", run="purge_torch", tag="note/text_summary")
    assert [e["step"] for e in ours] == [e["step"] for e in theirs] == list(range(10))


def test_two_writers_in_one_run(server: Server) -> None:
    assert [(s, v) for _, s, v in _scalars(server, "twins", "first")] == [(i, i) for i in range(TWIN_STEPS)]
    assert [(s, v) for _, s, v in _scalars(server, "twins", "second")] == [(i, -i) for i in range(TWIN_STEPS)]


# -- histograms --------------------------------------------------------------------------


def _histogram(server: Server, run: str, tag: str) -> tuple[float, int, np.ndarray]:
    ((wall, step, rows),) = server.json("/data/plugin/histograms/histograms", run=run, tag=tag)
    return wall, step, np.asarray(rows, dtype=np.float64).reshape(-1, 3)


def _non_empty(rows: np.ndarray) -> np.ndarray:
    return rows[rows[:, 2] > 0]


def _non_empty_buckets(data: np.ndarray, bins: Any) -> np.ndarray:
    """The non-empty ``[left, right, count]`` rows of ``np.histogram(data, bins)``, the last up to the max."""
    counts, edges = np.histogram(data, bins=bins)
    rows = _non_empty(np.stack([edges[:-1], edges[1:], counts], axis=1).astype(np.float64))
    rows[-1, 1] = data.max()
    return rows


def test_histograms(server: Server, tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    assert set(server.json("/data/plugin/histograms/tags")["tbkit"]) == {
        "hist/default",
        "hist/int",
        "hist/edges",
    }
    data = hist_values()
    torch_writer = TorchWriter(str(tmp_path))  # not in the served logdir
    torch_writer.close()
    tf1_edges = torch_writer.default_bins  # torch's default: TF1's exponential edges
    for tag, bins in (("hist/default", tf1_edges), ("hist/int", 5), ("hist/edges", HIST_EDGES)):
        wall, step, rows = _histogram(server, "tbkit", tag)
        assert (wall, step) == (WALL0 + 1, 1)
        assert rows[:, 2].sum() == data.size
        # The Rust loader serves a HistogramProto's buckets as stored (torch's, like tbkit's, keep
        # one leading empty bucket), each from the previous bucket's limit to its own, the first
        # from the min and the last up to the max.
        assert (rows[0, 0], rows[0, 2], rows[-1, 1]) == (data.min(), 0, data.max()), tag
        np.testing.assert_allclose(_non_empty(rows), _non_empty_buckets(data, bins), rtol=1e-6, err_msg=tag)
    _, _, rows = _histogram(server, "tbkit", "hist/edges")
    np.testing.assert_array_equal(rows[1:, :2], np.stack([HIST_EDGES[:-1], HIST_EDGES[1:]], axis=1))
    np.testing.assert_array_equal(rows[1:, 2], np.histogram(data, bins=HIST_EDGES)[0])


def test_histograms_same_as_torch(server: Server) -> None:
    tags = server.json("/data/plugin/histograms/tags")
    assert set(tags["tbkit"]) == set(tags["torch"])
    for tag in tags["tbkit"]:
        ours, theirs = _histogram(server, "tbkit", tag), _histogram(server, "torch", tag)
        assert ours[:2] == theirs[:2]
        np.testing.assert_array_equal(ours[2], theirs[2], err_msg=tag)  # the same HistogramProto


# -- images ------------------------------------------------------------------------------


def _served_image(server: Server, run: str, tag: str) -> tuple[int, np.ndarray]:
    (entry,) = server.json("/data/plugin/images/images", run=run, tag=tag)
    blob = server.get(f"/data/plugin/images/individualImage?{entry['query']}")
    return entry["step"], blob


def test_images(server: Server) -> None:
    tags = server.json("/data/plugin/images/tags")
    expected_tags = {*images(), "imgs/nchw", "imgs/nhwc", "fig"}
    assert set(tags["tbkit"]) == set(tags["torch"]) == expected_tags
    for step, (tag, (_, _, expected)) in enumerate(images().items()):
        got_step, blob = _served_image(server, "tbkit", tag)
        assert got_step == step
        mode = "RGBA" if expected.shape[2] == 4 else "RGB"
        np.testing.assert_array_equal(decode_png(blob, mode), expected)
    hwc = np.clip(batch_nchw().transpose(0, 2, 3, 1) * 255.0, 0, 255).astype(np.uint8)
    for tag in ("imgs/nchw", "imgs/nhwc"):
        grid = decode_png(_served_image(server, "tbkit", tag)[1])
        assert grid.shape == (8, 40, 3)
        np.testing.assert_array_equal(grid[4:8, 5:10], hwc[9])


def test_images_same_as_torch(server: Server) -> None:
    for tag in server.json("/data/plugin/images/tags")["tbkit"]:
        (ours_step, ours), (theirs_step, theirs) = (_served_image(server, p, tag) for p in PEERS)
        assert ours_step == theirs_step
        mode = "RGBA" if tag == "img/hwc_float_rgba" else "RGB"  # torch makes grey images RGB
        np.testing.assert_array_equal(decode_png(ours, mode), decode_png(theirs, mode), err_msg=tag)


# -- audio and text ----------------------------------------------------------------------


def _served_audio(server: Server, run: str) -> tuple[int, np.ndarray, int]:
    (entry,) = server.json("/data/plugin/audio/audio", run=run, tag="audio/sine")
    rate, channels, frames = decode_wav(server.get(f"/data/plugin/audio/individualAudio?{entry['query']}"))
    return rate, frames, channels


def test_audio(server: Server) -> None:
    (entry,) = server.json("/data/plugin/audio/audio", run="tbkit", tag="audio/sine")
    (torch_entry,) = server.json("/data/plugin/audio/audio", run="torch", tag="audio/sine")
    assert (entry["step"], entry["wall_time"]) == (5, WALL0 + 5)
    # The Rust loader gives a TF1 Summary.Audio (torch's form, and tbkit's) no content type.
    assert entry["contentType"] == torch_entry["contentType"] == "application/octet-stream"
    rate, frames, channels = _served_audio(server, "tbkit")
    assert (rate, channels) == (AUDIO_RATE, 1)
    assert np.abs(frames - pcm16(sine())).max() <= 1


def test_audio_same_as_torch(server: Server) -> None:
    (ours_rate, ours, _), (theirs_rate, theirs, _) = (_served_audio(server, p) for p in PEERS)
    assert ours_rate == theirs_rate
    assert ours.shape == theirs.shape
    assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1


def test_text_same_as_torch(server: Server) -> None:
    # torch appends "/text_summary" to text tags, and so does tbkit.
    tags = server.json("/data/plugin/text/tags")
    assert tags["tbkit"] == tags["torch"] == [f"{t}/text_summary" for t in TEXT]
    for tag, texts in TEXT.items():
        ours = server.json("/data/plugin/text/text", run="tbkit", tag=f"{tag}/text_summary")
        theirs = server.json("/data/plugin/text/text", run="torch", tag=f"{tag}/text_summary")
        assert [(e["step"], e["wall_time"]) for e in ours] == [(i, WALL0 + i) for i in range(len(texts))]
        assert [(e["step"], e["wall_time"]) for e in theirs] == [(e["step"], e["wall_time"]) for e in ours]
        # torch writes a one-element vector, which TensorBoard shows as a one-cell table; so does tbkit.
        cells = [plugin_util.markdown_to_safe_html(t) for t in texts]
        assert [e["text"] for e in ours] == [
            f"<table>\n<tbody>\n<tr>\n<td>{cell}</td>\n</tr>\n</tbody>\n</table>" for cell in cells
        ]
        assert [e["text"] for e in ours] == [e["text"] for e in theirs]
