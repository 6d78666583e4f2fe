"""The kinds' frame builders over any DataProvider: the interface's defaults give the same frames
as the logdir's own provider (which answers from its NumPy series)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import tbkit
from tbkit.plugins import registry
from tbkit.plugins._frames import kind_frame, records_frame
from tests.provider._plain import Plain

RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> tbkit.Logdir:
    root = tmp_path_factory.mktemp("kinds")
    for run in ("b", "a"):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(3):
                w.add_histogram("h", RNG.normal(size=50), step)
                w.add_images("imgs", RNG.integers(0, 255, (2, 3, 4, 4), dtype=np.uint8), step)
                w.add_audio("clip", RNG.uniform(-1, 1, 400).astype(np.float32), step, sample_rate=8000)
                w.add_text("note", f"*{run}* {step}", step)
                w.add_pr_curve("pr", RNG.integers(0, 2, 20), RNG.random(20), step)
            w.add_graph(torch.nn.Linear(2, 3), torch.zeros(1, 2))
    return tbkit.read(str(root))


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes) and len(a) == len(b)
    for name in a.columns:
        for x, y in zip(a[name].tolist(), b[name].tolist(), strict=True):
            if isinstance(x, np.ndarray):
                np.testing.assert_array_equal(x, y)
            elif hasattr(x, "SerializeToString"):
                assert x.SerializeToString() == y.SerializeToString()
            elif x is pd.NA or y is pd.NA:
                assert x is y, name
            else:
                assert x == y, name


@pytest.mark.parametrize("kind", ["histograms", "images", "audio", "text", "pr_curves"])
def test_a_kind_frame_over_the_interface_defaults_equals_the_logdir_frame(
    logdir: tbkit.Logdir, kind: str
) -> None:
    plugin, builder = registry.frame_builder(kind)
    assert builder is kind_frame
    ours = getattr(logdir, kind)()
    assert len(ours) > 0 and ours["run"].tolist()[0] == "a"  # runs in order, not as written
    _same(kind_frame(Plain(logdir.provider), plugin), ours)


@pytest.mark.parametrize("kind", ["graphs", "graph_nodes"])
def test_the_graph_frames_over_the_interface_defaults(logdir: tbkit.Logdir, kind: str) -> None:
    plugin, builder = registry.frame_builder(kind)
    ours = getattr(logdir, kind)()
    assert len(ours) > 0
    _same(builder(Plain(logdir.provider), plugin), ours)


def test_audio_rows_from_the_blob_sequence_keep_the_labels(logdir: tbkit.Logdir) -> None:
    dec = registry.decoder("audio")
    clip = logdir.audio()["data"].iloc[0]
    rows = dec.blob_rows([clip, clip], ["*one*", "two"])
    assert [r["label"] for r in rows] == ["*one*", "two"] and [r["index"] for r in rows] == [0, 1]
    assert rows[0]["sample_rate"] == 8000 and dec.blob_rows([clip], None)[0]["label"] == ""


def test_records_frame_keeps_a_missing_step_as_a_nullable_integer() -> None:
    frame = records_frame([{"run": "r", "step": 3}, {"run": "r", "step": None}], ["run", "step"])
    assert str(frame["step"].dtype) == "Int64" and frame["step"].isna().tolist() == [False, True]
    assert records_frame([{"run": "r", "step": 3}], ["run", "step"])["step"].dtype == np.int64
