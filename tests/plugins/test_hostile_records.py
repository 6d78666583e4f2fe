"""Hostile records through the reader (issue 14): each becomes a problem, everything else reads.

Every case here failed before its fix: deep JSON raised RecursionError out of every frame
method, odd Keras JSON AttributeError/TypeError out of ``graphs()``, huge declared shapes
MemoryError, and a decoder raising anything unexpected escaped from the reader.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit._tensors import MAX_FILL, make_ndarray
from tbkit.errors import InvalidArgumentError
from tbkit.plugins import registry
from tbkit.proto import tensor_pb2
from tbkit.reader.logdir import frame_kinds

from ._hostile import AFTER, BEFORE, declared, deep_json, keras, logdir_with

ODD_KERAS = [
    '{"config": 5}',
    '{"config": {"layers": 3}}',
    '{"config": {"layers": [5, {"config": 3}]}}',
    '{"class_name": "Model", "config": {"layers": [{"name": "a", "config": {"batch_shape": ["x", 2]}}]}}',
    '{"config": {"layers": [{"name": "a", "inbound_nodes": ' + "[" * 900 + "]" * 900 + "}]}}",
]


def read_everything(root: Path) -> tuple[tbkit.Logdir, list[int]]:
    """Every frame method of a fresh Logdir; the steps of the good scalars."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ld = tbkit.read(str(root))
        for kind in frame_kinds():
            ld.frame(kind)
        ld.runs()
        ld.problems()
        scalars = ld.scalars()
    return ld, sorted(scalars.query("tag == 'good'")["step"].tolist())


def test_deep_json_in_a_keras_graph_is_a_problem(tmp_path: Path) -> None:
    ld, steps = read_everything(logdir_with(tmp_path, [keras(deep_json())]))
    assert steps == [*BEFORE, *AFTER]
    problems = ld.problems()
    assert len(problems) == 1 and "nests too deeply" in problems["reason"].iloc[0]
    assert problems["path"].iloc[0].endswith("events.out.tfevents.1700000000.host.1.0")


@pytest.mark.parametrize("config", ODD_KERAS)
def test_oddly_shaped_keras_json_reads(tmp_path: Path, config: str) -> None:
    ld, steps = read_everything(logdir_with(tmp_path, [keras(config)]))
    assert steps == [*BEFORE, *AFTER]
    graphs = ld.graphs()
    assert graphs["kind"].tolist() == ["keras"]
    assert len(ld.graph_nodes()) <= 1


@pytest.mark.parametrize("plugin", ["scalars", "histograms", "pr_curves", "text", "images", ""])
@pytest.mark.parametrize(
    "dims, float_val, content",
    [
        ([2**31], [1.0], b""),  # 8 GiB of float32 from one value
        ([3 * 10**12], [1.0], b""),  # 11 TiB
        ([2**31, 3], [], b"\0" * 12),  # a histogram's [k, 3] with 12 bytes
        ([2**62, 2**62], [1.0], b""),  # a product overflowing int64
        ([-1], [1.0], b""),
        ([8, 8], [1.0, 2.0, 3.0], b""),  # a scalar tensor whose shape does not match
        ([], [], b"\1" * 12),
        ([5], [], b"\1" * 7),
    ],
)
def test_a_declared_shape_is_checked_before_allocating(
    tmp_path: Path, plugin: str, dims: list[int], float_val: list[float], content: bytes
) -> None:
    ld, steps = read_everything(
        logdir_with(tmp_path, [declared(dims, plugin, float_val=float_val, content=content)])
    )
    assert steps == [*BEFORE, *AFTER]
    if plugin in ("scalars", "histograms", "pr_curves", "text", "images"):
        assert len(ld.problems()) >= 1


@pytest.mark.parametrize("dims", [[2**31], [3 * 10**12], [MAX_FILL + 1]])
def test_make_ndarray_refuses_a_fill_beyond_the_bound(dims: list[int]) -> None:
    tensor = tensor_pb2.TensorProto(
        dtype=1, tensor_shape={"dim": [{"size": d} for d in dims]}, float_val=[1.0]
    )
    with pytest.raises(InvalidArgumentError, match="repeated elements"):
        make_ndarray(tensor)
    strings = tensor_pb2.TensorProto(
        dtype=7, tensor_shape={"dim": [{"size": d} for d in dims]}, string_val=[b"a"]
    )
    with pytest.raises(InvalidArgumentError, match="repeated elements"):
        make_ndarray(strings)


def test_make_ndarray_checks_content_size_against_the_shape() -> None:
    tensor = tensor_pb2.TensorProto(
        dtype=1, tensor_shape={"dim": [{"size": 2**31}]}, tensor_content=b"\0" * 16
    )
    with pytest.raises(InvalidArgumentError, match="holds 16 bytes"):
        make_ndarray(tensor)


def test_make_ndarray_still_fills_within_the_bound() -> None:
    """TensorFlow's rule (the last value repeated) holds for shapes within the bound."""
    tensor = tensor_pb2.TensorProto(dtype=1, tensor_shape={"dim": [{"size": 1000}]}, float_val=[1.0, 2.0])
    array = make_ndarray(tensor)
    assert array.shape == (1000,) and array[0] == 1.0 and (array[1:] == 2.0).all()


@pytest.mark.parametrize("error", [RuntimeError("boom"), RecursionError(), MemoryError(), KeyError("k")])
def test_a_decoder_raising_anything_costs_only_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    """The registry's guard: a decoder failing in an unexpected way is a problem for that record."""
    module = registry.decoder("text").module
    real = module.decode

    def decode(array: np.ndarray) -> np.ndarray:
        if b"bad" in array.reshape(-1).tolist():
            raise error
        return real(array)

    monkeypatch.setattr(module, "decode", decode)
    from ._hostile import tensor_event

    hostile = [
        tensor_event("note", "text", tensor_pb2.TensorProto(dtype=7, string_val=[b"fine"]), step=4),
        tensor_event("note", "text", tensor_pb2.TensorProto(dtype=7, string_val=[b"bad"]), step=5),
        tensor_event("note", "text", tensor_pb2.TensorProto(dtype=7, string_val=[b"fine"]), step=6),
    ]
    ld, steps = read_everything(logdir_with(tmp_path, hostile))
    assert steps == [*BEFORE, *AFTER]
    assert sorted(ld.text()["step"].tolist()) == [4, 6]
    reasons = ld.problems()["reason"].tolist()
    assert len(reasons) == 1 and f"text decoder failed ({type(error).__name__}" in reasons[0]


def test_the_guard_leaves_value_errors_and_other_attributes_alone() -> None:
    dec = registry.decoder("scalars")
    assert dec.PLUGIN_NAME == "scalars" and dec.module.__name__ == "tbkit.plugins.scalars.decode"
    with pytest.raises(ValueError, match="scalar"):
        dec.decode(np.zeros((2, 2), np.float32))
    assert not hasattr(dec, "no_such_function")
