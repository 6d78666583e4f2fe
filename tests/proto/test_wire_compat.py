"""tbkit's protos against TensorBoard's own: same field numbers, types, labels and enum values.

Every message and enum in ``tbkit/proto/*_pb2.py`` is paired by name with its TensorBoard
counterpart and the two descriptors are compared field by field, recursively. A subprocess
test then imports TensorFlow, TensorBoard's protos and tbkit together (both orders) and
checks that each side parses the other's bytes.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import numpy as np
import pytest
from google.protobuf import text_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

import tbkit.proto
from tbkit._tensors import make_tensor_proto
from tbkit.proto import event_pb2, graph_pb2, histogram_pb2, plugins_pb2, summary_pb2

pytestmark = pytest.mark.interop

_COMPAT = (
    "event summary histogram tensor tensor_shape resource_handle graph node_def versions attr_value types"
)
_PLUGINS = "scalar histogram image audio text pr_curve mesh"
_THEIR_MODULES = [
    *(f"tensorboard.compat.proto.{name}_pb2" for name in _COMPAT.split(" ")),
    *(f"tensorboard.plugins.{kind}.plugin_data_pb2" for kind in _PLUGINS.split(" ")),
    "tensorboard.plugins.custom_scalar.layout_pb2",
    "tensorboard.plugins.projector.projector_config_pb2",
    "tensorboard.plugins.hparams.api_pb2",
    "tensorboard.plugins.hparams.plugin_data_pb2",
]


def _walk(messages: list[Descriptor], enums: list[EnumDescriptor]) -> Iterator[Descriptor | EnumDescriptor]:
    yield from enums
    for message in messages:
        yield message
        yield from _walk(list(message.nested_types), list(message.enum_types))


def _types(module_names: list[str]) -> list[Descriptor | EnumDescriptor]:
    found = []
    for name in module_names:
        file = importlib.import_module(name).DESCRIPTOR
        found += _walk(list(file.message_types_by_name.values()), list(file.enum_types_by_name.values()))
    return found


def _our_modules() -> list[str]:
    return [
        f"tbkit.proto.{info.name}"
        for info in pkgutil.iter_modules(tbkit.proto.__path__)
        if info.name.endswith("_pb2")
    ]


def _key(desc: Descriptor | EnumDescriptor) -> str:
    """tbkit's name without the leading ``tbkit.``: ``Summary.Value``, ``hparams.Experiment`` ..."""
    return desc.full_name.removeprefix("tbkit.")


OURS = {_key(d): d for d in _types(_our_modules())}
_THEIRS_BY_FULL_NAME = {d.full_name: d for d in _types(_THEIR_MODULES)}


def _find_theirs(key: str) -> Descriptor | EnumDescriptor | None:
    """``tensorboard.<key>``, or else the one type whose name within its package is ``key``.

    (TensorBoard puts a few plugins' protos in sub-packages, e.g. ``tensorboard.mesh``.)
    """
    exact = _THEIRS_BY_FULL_NAME.get(f"tensorboard.{key}")
    if exact is not None:
        return exact
    matches = [d for n, d in _THEIRS_BY_FULL_NAME.items() if n.removeprefix(d.file.package + ".") == key]
    return matches[0] if len(matches) == 1 else None


THEIRS = {key: theirs for key in OURS if (theirs := _find_theirs(key)) is not None}


def _counterpart(desc: Descriptor | EnumDescriptor) -> Descriptor | EnumDescriptor:
    if desc.file.package.split(".")[0] != "tbkit":
        return desc  # a well-known type (google.protobuf.Value ...): both sides share it
    return THEIRS[_key(desc)]


def test_every_tbkit_proto_type_has_a_tensorboard_counterpart() -> None:
    assert len(OURS) > 40  # every module was found
    missing = sorted(set(OURS) - set(THEIRS))
    assert missing == []
    assert len(set(map(id, THEIRS.values()))) == len(THEIRS)  # no two of ours paired with one of theirs
    for name, desc in OURS.items():
        assert type(desc) is type(THEIRS[name]), name


def _field_facts(field: FieldDescriptor) -> dict[str, object]:
    return {
        "number": field.number,
        "type": field.type,
        "repeated": field.is_repeated,
        "required": field.is_required,
        "packed": field.is_packed,
        "presence": field.has_presence,
        "oneof": field.containing_oneof.name if field.containing_oneof else None,
    }


@pytest.mark.parametrize(
    "name",
    [n for n, d in sorted(OURS.items()) if isinstance(d, Descriptor)],
)
def test_message_fields_match_tensorboard(name: str) -> None:
    ours, theirs = OURS[name], THEIRS[name]
    assert isinstance(ours, Descriptor) and isinstance(theirs, Descriptor)
    assert ours.fields or not theirs.fields, name
    for field in ours.fields:
        assert field.name in theirs.fields_by_name, f"{name}.{field.name} is not in TensorBoard's {name}"
        other = theirs.fields_by_name[field.name]
        assert _field_facts(field) == _field_facts(other), f"{name}.{field.name}"
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            assert _counterpart(field.message_type) is other.message_type, f"{name}.{field.name}"
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert _counterpart(field.enum_type) is other.enum_type, f"{name}.{field.name}"
    assert ours.GetOptions().map_entry == theirs.GetOptions().map_entry
    # A field number TensorBoard uses that tbkit names differently would be misread silently.
    for field in theirs.fields:
        if field.number in ours.fields_by_number:
            assert ours.fields_by_number[field.number].name == field.name, f"{name} #{field.number}"


@pytest.mark.parametrize("name", sorted(n for n, d in OURS.items() if isinstance(d, EnumDescriptor)))
def test_enum_values_match_tensorboard(name: str) -> None:
    ours, theirs = OURS[name], THEIRS[name]
    ours_values = {v.name: v.number for v in ours.values}
    theirs_values = {v.name: v.number for v in theirs.values}
    assert ours_values == {k: theirs_values.get(k) for k in ours_values}, name
    unnamed = set(theirs_values) - set(ours_values)
    assert unnamed == set(), name


def _rich_event() -> event_pb2.Event:
    """An event that sets at least one field of most message types, nested ones included."""
    summary = summary_pb2.Summary()
    value = summary.value.add(tag="t", tensor=make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3)))
    value.metadata.plugin_data.plugin_name = "scalars"
    value.metadata.plugin_data.content = plugins_pb2.ScalarPluginData(version=0).SerializeToString()
    value.metadata.display_name = "display"
    value.metadata.summary_description = "desc"
    value.metadata.data_class = summary_pb2.DATA_CLASS_TENSOR
    summary.value.add(tag="s", simple_value=1.5)
    summary.value.add(tag="img").image.CopyFrom(
        summary_pb2.Summary.Image(height=2, width=3, colorspace=3, encoded_image_string=b"png")
    )
    summary.value.add(tag="aud").audio.CopyFrom(
        summary_pb2.Summary.Audio(
            sample_rate=8000, num_channels=1, length_frames=4, encoded_audio_string=b"wav", content_type="x"
        )
    )
    summary.value.add(tag="h").histo.CopyFrom(
        histogram_pb2.HistogramProto(
            min=-1, max=2, num=3, sum=1, sum_squares=5, bucket_limit=[0, 1, 2], bucket=[1, 1, 1]
        )
    )
    strings = summary.value.add(tag="str", tensor=make_tensor_proto(np.array(["a", "bé"], dtype=object)))
    strings.tensor.version_number = 2
    handle = strings.tensor.resource_handle_val.add(device="cpu", container="c", name="n", hash_code=9)
    handle.dtypes_and_shapes.add(dtype=1).shape.dim.add(size=4, name="d")
    strings.tensor.variant_val.add(type_name="v", metadata=b"m").tensors.add(dtype=3, int_val=[7])
    event = event_pb2.Event(wall_time=1.25, step=-3, summary=summary)
    event.source_metadata.writer = "tbkit"
    return event


def _graph() -> graph_pb2.GraphDef:
    graph = graph_pb2.GraphDef(versions=graph_pb2.VersionDef(producer=3, min_consumer=1, bad_consumers=[2]))
    node = graph.node.add(name="a", op="Const", input=["^b"], device="/cpu:0")
    node.attr["value"].tensor.CopyFrom(make_tensor_proto(np.float32(2.0)))
    node.attr["list"].list.i.extend([1, 2])
    node.attr["list"].list.type.extend([1, 9])
    node.attr["list"].list.s.append(b"x")
    node.attr["fn"].func.name = "f"
    node.attr["fn"].func.attr["k"].b = True
    node.attr["shape"].shape.dim.add(size=-1)
    return graph


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (_rich_event, "tensorboard.compat.proto.event_pb2.Event"),
        (lambda: event_pb2.Event(step=5, session_log=event_pb2.SessionLog(status=1, msg="m")), None),
        (lambda: event_pb2.Event(file_version="brain.Event:2"), None),
        (
            lambda: event_pb2.Event(
                tagged_run_metadata=event_pb2.TaggedRunMetadata(tag="t", run_metadata=b"r")
            ),
            None,
        ),
        (lambda: event_pb2.Event(graph_def=_graph().SerializeToString()), None),
        (_graph, "tensorboard.compat.proto.graph_pb2.GraphDef"),
        (
            lambda: plugins_pb2.MeshPluginData(
                version=1, name="m", content_type=2, json_config="{}", shape=[1, 3], components=5
            ),
            "tensorboard.plugins.mesh.plugin_data_pb2.MeshPluginData",
        ),
        pytest.param(
            lambda: plugins_pb2.Layout(
                version=1,
                category=[
                    plugins_pb2.Category(
                        title="c",
                        closed=True,
                        chart=[
                            plugins_pb2.Chart(
                                title="a", multiline=plugins_pb2.MultilineChartContent(tag=["x"])
                            ),
                            plugins_pb2.Chart(
                                title="b",
                                margin=plugins_pb2.MarginChartContent(
                                    series=[
                                        plugins_pb2.MarginChartContent.Series(value="v", lower="l", upper="u")
                                    ]
                                ),
                            ),
                        ],
                    )
                ],
            ),
            "tensorboard.plugins.custom_scalar.layout_pb2.Layout",
        ),
    ],
)
def test_bytes_round_trip_through_tensorboard_unchanged(ours, theirs) -> None:
    message = ours()
    module_name, _, class_name = (theirs or "tensorboard.compat.proto.event_pb2.Event").rpartition(".")
    their_class = getattr(importlib.import_module(module_name), class_name)
    data = message.SerializeToString(deterministic=True)
    parsed = their_class.FromString(data)
    # The text form names every field TensorBoard understood and leaves unknown ones out.
    assert text_format.MessageToString(parsed) == text_format.MessageToString(message)
    assert parsed.SerializeToString(deterministic=True) == data
    back = type(message).FromString(parsed.SerializeToString(deterministic=True))
    assert back == message


_CROSS_IMPORT_SCRIPT = textwrap.dedent(
    """
    import importlib, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    order = sys.argv[1].split(",")
    for name in order:
        importlib.import_module(name)
    import tensorflow as tf
    from tensorflow.core.util import event_pb2 as tf_event_pb2
    from tensorboard.compat.proto import event_pb2 as tb_event_pb2
    import tbkit
    from tbkit.proto import event_pb2 as our_event_pb2
    from tbkit.plugins.scalars.summary import scalar_pb

    # TensorFlow's own summary op, serialized by TensorFlow, parsed by tbkit and TensorBoard.
    logdir = sys.argv[2]
    with tf.summary.create_file_writer(os.path.join(logdir, "tf")).as_default():
        tf.summary.scalar("tf_loss", 0.5, step=3)
        tf.summary.text("tf_text", "hello", step=4)
    tf_files = sorted(os.listdir(os.path.join(logdir, "tf")))
    tf_events = list(tf.compat.v1.train.summary_iterator(os.path.join(logdir, "tf", tf_files[0])))
    assert len(tf_events) == 3, tf_events
    for tf_event in tf_events:
        data = tf_event.SerializeToString(deterministic=True)
        ours = our_event_pb2.Event.FromString(data)
        assert ours.SerializeToString(deterministic=True) == data
        assert tb_event_pb2.Event.FromString(data).SerializeToString(deterministic=True) == data
    ours = our_event_pb2.Event.FromString(tf_events[1].SerializeToString())
    assert ours.step == 3 and ours.summary.value[0].tag == "tf_loss"
    assert ours.summary.value[0].metadata.plugin_data.plugin_name == "scalars"

    # tbkit's bytes, parsed by TensorFlow's and TensorBoard's Event.
    event = our_event_pb2.Event(wall_time=2.5, step=7, summary=scalar_pb("loss", 0.25))
    data = event.SerializeToString(deterministic=True)
    for their in (tf_event_pb2.Event, tb_event_pb2.Event):
        parsed = their.FromString(data)
        assert parsed.SerializeToString(deterministic=True) == data
        assert parsed.summary.value[0].tensor.float_val or parsed.summary.value[0].tensor.tensor_content
    assert tf.make_ndarray(tf_event_pb2.Event.FromString(data).summary.value[0].tensor) == 0.25

    # A file written by tbkit's writer, read by TensorFlow's record reader (CRCs checked).
    with tbkit.SummaryWriter(os.path.join(logdir, "tbkit")) as writer:
        writer.add_scalar("loss", 0.75, global_step=11)
        writer.add_text("note", "hi", global_step=12)
    path = os.path.join(logdir, "tbkit", os.listdir(os.path.join(logdir, "tbkit"))[0])
    read = list(tf.compat.v1.train.summary_iterator(path))
    assert read[0].file_version == "brain.Event:2", read[0]
    values = {e.step: e.summary.value[0] for e in read[1:]}
    assert values[11].tag == "loss" and values[11].simple_value == 0.75  # torch's default form
    assert values[12].tag == "note/text_summary" and tf.make_ndarray(values[12].tensor) == b"hi"
    print("OK", ",".join(order), len(tf_events), len(read))
    """
)


@pytest.mark.slow
def test_tensorflow_tensorboard_and_tbkit_in_one_process(tmp_path) -> None:
    orders = [
        "tensorflow,tensorboard.compat.proto.event_pb2,tbkit.proto.event_pb2",
        "tbkit.proto.event_pb2,tensorboard.compat.proto.summary_pb2,tensorflow",
    ]
    for i, order in enumerate(orders):
        logdir = tmp_path / str(i)
        result = subprocess.run(
            [sys.executable, "-c", _CROSS_IMPORT_SCRIPT, order, str(logdir)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr[-4000:]
        assert result.stdout.strip().splitlines()[-1] == f"OK {order} 3 3"
