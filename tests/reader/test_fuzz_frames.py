"""Property tests (issue 14): damaged and hostile event files through every frame method.

Oracle: nothing but a ``tbkit.errors`` error escapes ``tbkit.read`` and the frame methods
(a damaged record is a problem entry), and the scalars written before the damage are still
read. Hypothesis runs derandomized (a fixed seed) with a bounded number of examples; the
long campaign is ``bench/fuzz.py``.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tbkit
from tbkit.errors import TbkitError
from tbkit.proto import event_pb2, histogram_pb2, tensor_pb2, tensor_shape_pb2
from tbkit.reader.logdir import frame_kinds
from tbkit.record.framing import encode_record
from tbkit.record.scan import scan_records

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
PLUGINS = ["scalars", "histograms", "images", "audio", "text", "pr_curves", "hparams", "mesh",
           "custom_scalars", "graph_keras_model", "graphs", "projector", ""]  # fmt: skip


@pytest.fixture(scope="module")
def seed() -> tuple[bytes, list[tuple[int, int, int]]]:
    """A small file of every kind: its bytes and its scalar records ``(start, end, step)``."""
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        with tbkit.SummaryWriter(tmp) as w:
            for step in range(3):
                w.add_scalar("loss", float(step), step)
                w.add_histogram("weights", rng.normal(size=50), step)
                w.add_image("image", rng.integers(0, 255, (3, 4, 4), dtype=np.uint8), step)
                w.add_text("note", f"step {step}", step)
                w.add_pr_curve("pr", rng.integers(0, 2, 20), rng.uniform(size=20), step)
        path = next(Path(tmp).glob("events.out.tfevents.*"))
        data = path.read_bytes()
    scan = scan_records(data)
    spans = []
    for start, length in zip(scan.starts.tolist(), scan.lengths.tolist(), strict=True):
        record = data[start : start + length]
        event = event_pb2.Event.FromString(record)
        if any(v.tag == "loss" for v in event.summary.value):
            spans.append((start - 12, start + length + 4, event.step))
    return data, spans


def _read_all(data: bytes) -> set[int]:
    """Every frame method over a logdir holding ``data``; the steps of ``loss`` read."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "events.out.tfevents.1700000000.host.1.0").write_bytes(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ld = tbkit.read(tmp)
                for kind in frame_kinds():
                    ld.frame(kind)
                ld.runs()
                ld.problems()
                scalars = ld.scalars()
            except TbkitError:
                return set()
        return set(scalars.query("tag == 'loss'")["step"].tolist())


@st.composite
def hostile_event(draw: st.DrawFn) -> bytes:
    """A well-framed record of a hostile event: odd shapes, dtypes, payloads and nesting."""
    event = event_pb2.Event(
        wall_time=draw(st.floats(allow_nan=True)), step=draw(st.integers(-(2**63), 2**63 - 1))
    )
    value = event.summary.value.add(tag=draw(st.sampled_from(["loss2", "weights", "note", "x"])))
    value.metadata.plugin_data.plugin_name = draw(st.sampled_from(PLUGINS))
    value.metadata.plugin_data.content = draw(st.binary(max_size=40))
    shape = draw(st.lists(st.sampled_from([0, 1, 3, 7, 2**31, 3 * 10**12, 2**62]), max_size=3))
    kind = draw(st.sampled_from(["numbers", "content", "strings", "nested", "histo"]))
    if kind == "histo":
        histo = histogram_pb2.HistogramProto(num=draw(st.sampled_from([0, -1, 2**40])))
        histo.bucket_limit.extend(draw(st.lists(st.floats(), max_size=8)))
        histo.bucket.extend(draw(st.lists(st.floats(), max_size=8)))
        value.histo.CopyFrom(histo)
        return encode_record(event.SerializeToString())
    tensor = tensor_pb2.TensorProto(dtype=draw(st.sampled_from([0, 1, 2, 3, 7, 9, 10, 19, 23, 99])))
    tensor.tensor_shape.dim.extend([tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in shape])
    if kind == "numbers":
        tensor.float_val.extend(draw(st.lists(st.floats(width=32), max_size=12)))
    elif kind == "content":
        tensor.tensor_content = draw(st.binary(max_size=64))
    elif kind == "strings":
        tensor.string_val.extend(draw(st.lists(st.binary(max_size=30), max_size=4)))
    else:
        depth = draw(st.sampled_from([50, 2000, 50_000]))
        tensor.dtype = 7
        tensor.string_val.append(("[" * depth + "]" * depth).encode())
    value.tensor.CopyFrom(tensor)
    return encode_record(event.SerializeToString())


@FUZZ
@given(data=st.data())
def test_bit_flips_and_truncation_only_become_problems(seed: tuple[bytes, list], data: st.DataObject) -> None:
    original, spans = seed
    buf = bytearray(original)
    if data.draw(st.booleans(), label="truncate"):
        at = data.draw(st.integers(0, len(buf)), label="at")
        buf, lo = buf[:at], at
    else:
        spots = data.draw(st.lists(st.integers(0, len(buf) - 1), min_size=1, max_size=8), label="flips")
        for spot in spots:
            buf[spot] ^= 1 << data.draw(st.integers(0, 7))
        lo = min(spots)
    steps = _read_all(bytes(buf))
    assert {s for start, end, s in spans if end <= lo} <= steps


@FUZZ
@given(records=st.lists(hostile_event(), min_size=1, max_size=3), where=st.integers(0, 2**16))
def test_hostile_records_cost_only_themselves(
    seed: tuple[bytes, list], records: list[bytes], where: int
) -> None:
    original, spans = seed
    ends = [end for _, end, _ in spans]
    cut = ends[where % len(ends)]  # between two records
    steps = _read_all(original[:cut] + b"".join(records) + original[cut:])
    assert {s for _, _, s in spans} <= steps
