"""read(..., tags=...): the records of other tags are framed and passed over, the rest read as always."""

from __future__ import annotations

import glob

import numpy as np
import pandas as pd

import tbkit


def _write(logdir: str) -> None:
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(logdir) as w:
        for step in range(1, 40):
            w.add_scalar("loss", 1.0 / step, step)
            w.add_scalar("noise", float(rng.random()), step)
            w.add_histogram("weights", rng.normal(size=50).astype(np.float32), step)
            w.add_image("sample", rng.integers(0, 255, (3, 4, 4), dtype=np.uint8), step)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    def plain(frame: pd.DataFrame) -> pd.DataFrame:  # categories differ: compare the values
        cats = frame.select_dtypes("category").columns
        return frame.reset_index(drop=True).astype({c: object for c in cats})

    pd.testing.assert_frame_equal(plain(a), plain(b))


def test_a_tag_filter_reads_what_a_full_read_has_of_those_tags(tmp_path) -> None:
    _write(str(tmp_path / "run"))
    full = tbkit.read(str(tmp_path))
    some = tbkit.read(str(tmp_path), tags=["loss", "weights"])
    _same(some.scalars(), full.scalars()[full.scalars()["tag"] == "loss"])
    _same(some.histograms(), full.histograms()[full.histograms()["tag"] == "weights"])
    assert len(some.images()) == 0 and len(full.images()) == 39
    assert list(some.runs()["start_time"]) == list(full.runs()["start_time"])


def test_a_damaged_record_of_a_tag_not_asked_for_is_no_problem(tmp_path) -> None:
    _write(str(tmp_path / "run"))
    (path,) = glob.glob(str(tmp_path / "run" / "*tfevents*"))
    with open(path, "rb") as f:
        data = bytearray(f.read())
    pos = data.rfind(b"sample")  # a byte of the last image record's data flipped (its tag intact)
    data[pos + 20] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    full = tbkit.read(str(tmp_path))
    assert ["data checksum" in r for r in full.problems()["reason"]] == [True]
    some = tbkit.read(str(tmp_path), tags=["loss"])
    assert len(some.problems()) == 0 and len(some.scalars()) == 39
    assert len(tbkit.read(str(tmp_path), tags=["sample"]).problems()) == 1
