"""Both paths agree on real event files written by tbkit, torch.utils.tensorboard and tensorboardX."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.record._paths import extract_both, scan_both


def _log(writer, new_style: bool = False) -> None:
    for step in range(40):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        if new_style:  # the tensor form (tensorboardX writes simple_value only)
            writer.add_scalar("train/accuracy", step * 0.01, step, new_style=True)
        writer.add_scalars("group", {"a": step, "b": -step}, step)
        if step % 10 == 0:
            writer.add_histogram("weights", np.linspace(-1, 1, 50) * step, step)
            writer.add_text("note", f"step {step}", step)
            writer.add_image("img", np.zeros((3, 4, 4), dtype=np.uint8), step)


def _tbkit(logdir: Path) -> None:
    import tbkit

    with tbkit.SummaryWriter(str(logdir)) as w:
        _log(w, new_style=True)
        w.add_scalar("f64", np.float64(2.5), 1, new_style=True)


def _torch(logdir: Path) -> None:
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    w = torch_tb.SummaryWriter(str(logdir))
    _log(w, new_style=True)
    w.close()


def _tensorboardx(logdir: Path) -> None:
    tbx = pytest.importorskip("tensorboardX")
    w = tbx.SummaryWriter(str(logdir))
    _log(w)
    w.close()


@pytest.mark.interop
@pytest.mark.parametrize("write", [_tbkit, _torch, _tensorboardx], ids=["tbkit", "torch", "tensorboardX"])
def test_real_files_agree_intact_and_damaged(tmp_path, write):
    write(tmp_path)
    files = sorted(tmp_path.rglob("*tfevents*"))
    assert files
    scalars = 0
    for f in files:
        buf = f.read_bytes()
        scan = scan_both(buf)
        assert scan.end == len(buf) and not scan.problems
        got = extract_both(buf, scan.starts, scan.lengths)
        scalars += len(got.index)
        rng = np.random.default_rng(len(buf))
        for _ in range(30):  # damaged copies: flipped bytes, a cut, garbage in the middle
            bad = bytearray(buf)
            for pos in rng.integers(0, len(bad), size=3).tolist():
                bad[pos] ^= int(rng.integers(1, 256))
            cut = int(rng.integers(0, len(bad)))
            bad[cut:cut] = rng.integers(0, 256, size=int(rng.integers(1, 50)), dtype=np.uint8).tobytes()
            bad = bad[: int(rng.integers(len(bad) // 2, len(bad) + 1))]
            damaged = scan_both(bytes(bad))
            extract_both(bytes(bad), damaged.starts, damaged.lengths)
    assert scalars >= 40  # the scalar fast path did run on these files
