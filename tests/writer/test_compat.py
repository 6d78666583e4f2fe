"""What libraries reach for on torch's and tensorboardX's writers: file writers, JSON export, keywords."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from tbkit import SummaryWriter
from tbkit.proto import event_pb2, summary_pb2
from tbkit.writer.summary_writer import NullSummaryWriter

from ._events import event_files, parse_events, run_events


def test_file_writer_and_all_writers_are_torchs(tmp_path) -> None:
    logdir = str(tmp_path / "run")
    with SummaryWriter(logdir) as w:
        assert w.file_writer.get_logdir() == logdir
        assert w._get_file_writer() is w.file_writer
        w.add_scalars("m", {"a": 1.0}, 0)
        assert set(w.all_writers) == {logdir, os.path.join(logdir, "m_a")}
        assert w.all_writers[logdir] is w.file_writer
        for fw in w.all_writers.values():
            fw.flush()
    assert [e.summary.value[0].simple_value for e in run_events(os.path.join(logdir, "m_a"))[1:]] == [1.0]


def test_get_file_writer_takes_tensorboards_protos_as_lightning_sends_them(tmp_path) -> None:
    from tensorboard.compat.proto import event_pb2 as tb_event_pb2
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

    logdir = str(tmp_path / "run")
    with SummaryWriter(logdir) as w:
        fw = w._get_file_writer()
        theirs = tb_summary_pb2.Summary(value=[tb_summary_pb2.Summary.Value(tag="x", simple_value=2.5)])
        fw.add_summary(theirs, global_step=4, walltime=10.0)
        fw.add_summary(theirs.SerializeToString(), 5)
        fw.add_event(
            tb_event_pb2.Event(step=1, wall_time=1.0, file_version="ignored:1"), step=6, walltime=11.0
        )
        fw.add_event(event_pb2.Event(graph_def=b"\x0a\x00"))
    events = run_events(logdir)[1:]
    assert [(e.step, e.summary.value[0].simple_value) for e in events[:2]] == [(4, 2.5), (5, 2.5)]
    assert events[0].wall_time == 10.0
    assert (events[2].step, events[2].wall_time) == (6, 11.0)  # torch's add_event sets both
    assert events[3].graph_def == b"\x0a\x00"
    assert len(theirs.value) == 1 and theirs.value[0].tag == "x"  # the caller's proto is untouched


def test_file_writer_add_graph_writes_graph_and_run_metadata(tmp_path) -> None:
    from tbkit.proto import graph_pb2

    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="a", op="Const")])
    with SummaryWriter(str(tmp_path)) as w:
        w.file_writer.add_graph((graph, b"stats"))
    events = run_events(str(tmp_path))[1:]
    assert graph_pb2.GraphDef.FromString(events[0].graph_def).node[0].name == "a"
    assert (events[1].tagged_run_metadata.tag, events[1].tagged_run_metadata.run_metadata) == (
        "step1",
        b"stats",
    )


def test_file_writer_refuses_what_is_not_a_proto(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(TypeError, match="summary"):
            w.file_writer.add_summary({"tag": 1})
        with pytest.raises(ValueError, match="Event"):
            w.file_writer.add_event(b"\xff\xff\xff")


def test_export_scalars_to_json_is_tensorboardxs(tmp_path) -> None:
    logdir = str(tmp_path / "run")
    out = tmp_path / "scalars.json"
    with SummaryWriter(logdir) as w:
        w.add_scalar("loss", 0.5, 1, walltime=100.0)
        w.add_scalar("loss", 0.25, 2, walltime=101.0)
        w.add_scalar("tensor", 1.5, 3, walltime=102.0, new_style=True)
        w.add_text("note", "not a scalar", 1)
        w.add_scalars("m", {"a": 1.0, "b": 2.0}, 4, walltime=103.0)
        w.export_scalars_to_json(str(out))
        assert json.loads(out.read_text()) == {
            f"{logdir}/loss": [[100.0, 1, 0.5], [101.0, 2, 0.25]],
            f"{logdir}/tensor": [[102.0, 3, 1.5]],
            f"{logdir}/m/a": [[103.0, 4, 1.0]],
            f"{logdir}/m/b": [[103.0, 4, 2.0]],
        }
        # As tensorboardX's, an export holds what was logged since the last one.
        w.add_scalar("loss", 0.125, 5, walltime=104.0)
        w.export_scalars_to_json(str(out))
        assert json.loads(out.read_text()) == {f"{logdir}/loss": [[104.0, 5, 0.125]]}


def test_tensorboardx_keywords_logdir_and_write_to_disk(tmp_path) -> None:
    with SummaryWriter(logdir=str(tmp_path / "x")) as w:
        w.add_scalar("a", 1.0, 0)
        assert w.get_logdir() == str(tmp_path / "x")
    assert len(event_files(str(tmp_path / "x"))) == 1
    off = SummaryWriter(str(tmp_path / "off"), write_to_disk=False)
    assert isinstance(off, NullSummaryWriter)
    off.add_scalar("a", 1.0, 0)
    off.file_writer.add_summary(summary_pb2.Summary())
    assert off._get_file_writer().get_logdir() == str(tmp_path / "off")
    off.export_scalars_to_json(str(tmp_path / "off.json"))
    off.close()
    assert json.loads((tmp_path / "off.json").read_text()) == {}
    assert not (tmp_path / "off").exists()


def test_add_video_dataformats(tmp_path) -> None:
    video = np.random.default_rng(1).random((2, 4, 3, 8, 6))  # N, T, C, H, W
    with SummaryWriter(str(tmp_path / "a")) as w:
        w.add_video("v", video, 0)
    with SummaryWriter(str(tmp_path / "b")) as w:
        w.add_video("v", video.transpose(0, 1, 3, 4, 2), 0, dataformats="NTHWC")
    with SummaryWriter(str(tmp_path / "c")) as w:
        w.add_video("v", video[0].transpose(0, 2, 3, 1), 0, dataformats="thwc")  # one video, any case

    def gif(run: str) -> bytes:
        value = run_events(str(tmp_path / run))[1].summary.value[0]
        assert value.image.colorspace == 3
        return value.image.encoded_image_string

    assert gif("a") == gif("b")
    assert gif("c")[:6] == b"GIF89a"
    with SummaryWriter(str(tmp_path / "d")) as w:
        with pytest.raises(ValueError, match="dataformats"):
            w.add_video("v", video, 0, dataformats="NTCHX")
        with pytest.raises(ValueError, match="axes"):
            w.add_video("v", video, 0, dataformats="TCHW")


def test_add_text_uses_torchs_tag(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        w.add_text("notes", "hello", 1)
    ((value,),) = [e.summary.value for e in parse_events(event_files(str(tmp_path))[0])[1:]]
    assert value.tag == "notes/text_summary"
    assert value.metadata.plugin_data.plugin_name == "text"
