"""to_numpy / to_float with real TensorFlow eager tensors and variables (the one module importing TF)."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit import SummaryWriter
from tbkit._arrays import to_float, to_numpy
from tbkit._tensors import make_ndarray
from tbkit.proto import event_pb2
from tbkit.record import storage
from tbkit.record.framing import iter_records

pytestmark = [pytest.mark.slow, pytest.mark.interop]


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def test_eager_tensors(tf) -> None:
    t = tf.constant([[1.0, 2.0], [3.0, 4.5]], dtype=tf.float32)
    arr = to_numpy(t)
    assert isinstance(arr, np.ndarray)
    assert arr.dtype == np.float32
    np.testing.assert_array_equal(arr, [[1.0, 2.0], [3.0, 4.5]])
    ints = to_numpy(tf.range(5, dtype=tf.int64))
    assert ints.dtype == np.int64 and ints.tolist() == [0, 1, 2, 3, 4]
    zero_d = to_numpy(tf.constant(2.5, dtype=tf.float64))
    assert zero_d.shape == () and zero_d.dtype == np.float64 and zero_d.item() == 2.5
    assert to_float(tf.constant(0.75)) == 0.75
    assert to_float(tf.constant([[3]])) == 3.0
    with pytest.raises(ValueError, match="my_arg"):
        to_float(tf.constant([1.0, 2.0]), name="my_arg")


def test_variables(tf) -> None:
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    arr = to_numpy(v)
    assert arr.dtype == np.float32
    np.testing.assert_array_equal(arr, np.arange(6, dtype=np.float32).reshape(2, 3))
    v.assign_add(tf.ones((2, 3)))
    np.testing.assert_array_equal(to_numpy(v), np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    assert to_float(tf.Variable(1.25)) == 1.25


def test_summary_writer_accepts_tf_values(tf, tmp_path) -> None:
    normal = tf.random.stateless_normal((100,), seed=(1, 2))
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("s", tf.constant(0.5), global_step=1)
        w.add_scalar("v", tf.Variable(1.5, dtype=tf.float64), global_step=2)
        w.add_histogram("h", normal, global_step=3)
        w.add_tensor("t", tf.constant([1, 2, 3], dtype=tf.int32), global_step=4)
    (name,) = [n for n, _ in storage.listdir(str(tmp_path))]
    path = storage.join(str(tmp_path), name)
    events = [event_pb2.Event.FromString(d) for _, d in iter_records(storage.read_bytes(path), path=path)]
    values = {v.tag: (e.step, v) for e in events[1:] for v in e.summary.value}
    assert values["s"][0] == 1 and values["s"][1].simple_value == 0.5
    assert values["v"][0] == 2 and values["v"][1].simple_value == 1.5
    histo = values["h"][1].histo  # torch's HistogramProto
    assert values["h"][0] == 3 and histo.num == 100 and sum(histo.bucket) == 100
    data = normal.numpy().astype(np.float64)
    assert (histo.min, histo.max) == (data.min(), data.max())
    np.testing.assert_allclose(histo.sum, data.sum())
    tensor = make_ndarray(values["t"][1].tensor)
    assert values["t"][0] == 4 and tensor.dtype == np.int32 and tensor.tolist() == [1, 2, 3]


def test_bfloat16_values(tf, tmp_path) -> None:
    value = tf.constant(1.5, dtype=tf.bfloat16)
    assert to_float(value) == 1.5
    arr = to_numpy(tf.constant([0.5, 2.0], dtype=tf.bfloat16))
    assert arr.dtype == np.float32 and arr.tolist() == [0.5, 2.0]
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("bf16", value, 1)
        w.add_histogram("h", tf.ones((10,), dtype=tf.bfloat16), 1)
    (name,) = [n for n, _ in storage.listdir(str(tmp_path))]
    path = storage.join(str(tmp_path), name)
    events = [event_pb2.Event.FromString(d) for _, d in iter_records(storage.read_bytes(path), path=path)]
    assert [v.simple_value for e in events[1:] for v in e.summary.value if v.tag == "bf16"] == [1.5]
