"""Reading rules: restarts, legacy migration, metadata, dtypes, versions, several files."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tbkit
from tbkit._tensors import make_tensor_proto
from tbkit.plugins.scalars.metadata import create_summary_metadata
from tbkit.proto import event_pb2, graph_pb2, histogram_pb2, plugins_pb2, summary_pb2
from tests.reader._events import header, records, simple, start, write


def _scalars(path, **kwargs):
    df = tbkit.read(str(path), **kwargs).scalars()
    return list(zip(df["tag"].tolist(), df["step"].tolist(), df["value"].tolist(), strict=True))


def _tensor_event(tag, step, array, metadata=None):
    value = summary_pb2.Summary.Value(tag=tag, tensor=make_tensor_proto(np.asarray(array)))
    if metadata is not None:
        value.metadata.CopyFrom(metadata)
    return event_pb2.Event(wall_time=1.0 + step, step=step, summary=summary_pb2.Summary(value=[value]))


def test_session_start_purges_earlier_points_at_or_after_its_step(tmp_path):
    events = (
        [header()]
        + [simple("a", s, s) for s in range(1, 6)]
        + [start(3)]
        + [simple("a", s, 10 + s) for s in (3, 4)]
    )
    write(tmp_path / "run", events)
    assert _scalars(tmp_path) == [("a", 1, 1.0), ("a", 2, 2.0), ("a", 3, 13.0), ("a", 4, 14.0)]
    kept = _scalars(tmp_path, purge_orphaned_data=False)
    assert [s for _, s, _ in kept] == [1, 2, 3, 4, 5, 3, 4]


def test_purge_step_of_a_restarted_writer_in_a_second_file(tmp_path):
    with tbkit.SummaryWriter(str(tmp_path / "r"), filename_suffix=".a") as w:
        for s in range(10):
            w.add_scalar("x", float(s), s)
    with tbkit.SummaryWriter(str(tmp_path / "r"), purge_step=5, filename_suffix=".b") as w:
        for s in range(5, 8):
            w.add_scalar("x", 100.0 + s, s)
    got = _scalars(tmp_path)
    assert [s for _, s, _ in got] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert [v for _, _, v in got][5:] == [105.0, 106.0, 107.0]


def test_legacy_file_without_version_drops_a_tags_later_points_on_backward_step(tmp_path):
    events = [simple("a", s, s) for s in range(1, 6)] + [simple("b", 9, 9.0)] + [simple("a", 3, 33.0)]
    write(tmp_path / "run", events)  # no file_version record: the legacy rule
    assert _scalars(tmp_path) == [("a", 1, 1.0), ("a", 2, 2.0), ("a", 3, 33.0), ("b", 9, 9.0)]
    write(tmp_path / "run", [header(), *events])  # with file_version: nothing is dropped
    assert len(_scalars(tmp_path)) == 7


def test_several_values_per_event_and_every_scalar_dtype(tmp_path):
    meta = create_summary_metadata()
    values = [
        summary_pb2.Summary.Value(
            tag=f"t_{np.dtype(dt).name}", tensor=make_tensor_proto(np.asarray(3, dtype=dt)), metadata=meta
        )
        for dt in (np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8)
    ]
    values.append(summary_pb2.Summary.Value(tag="simple", simple_value=2.5))
    event = event_pb2.Event(wall_time=2.0, step=7, summary=summary_pb2.Summary(value=values))
    write(tmp_path / "run", [header(), event])
    got = _scalars(tmp_path)
    assert len(got) == 8 and all(step == 7 for _, step, _ in got)
    assert {tag: v for tag, _, v in got} == {**{v.tag: 3.0 for v in values[:-1]}, "simple": 2.5}


def test_legacy_histogram_migration_trims_empty_edge_buckets(tmp_path):
    histo = histogram_pb2.HistogramProto(
        min=-0.5, max=2.5, num=4, bucket_limit=[-1e308, -1, 0, 1, 2, 3, 1e308], bucket=[0, 0, 1, 2, 1, 0, 0]
    )
    value = summary_pb2.Summary.Value(tag="h", histo=histo)
    write(
        tmp_path / "run",
        [header(), event_pb2.Event(step=1, wall_time=1.0, summary=summary_pb2.Summary(value=[value]))],
    )
    h = tbkit.read(str(tmp_path)).histograms()
    assert h["edges"][0].tolist() == [-0.5, 0.0, 1.0, 2.5]
    assert h["counts"][0].tolist() == [1.0, 2.0, 1.0]


def test_legacy_image_audio_and_metadata_are_migrated(tmp_path):
    png = b"\x89PNG\r\n\x1a\nfake"
    image = summary_pb2.Summary.Image(height=2, width=3, colorspace=3, encoded_image_string=png)
    audio = summary_pb2.Summary.Audio(sample_rate=8000, num_channels=1, encoded_audio_string=b"RIFFxxxx")
    values = [
        summary_pb2.Summary.Value(tag="img", image=image),
        summary_pb2.Summary.Value(tag="snd", audio=audio),
    ]
    write(
        tmp_path / "run",
        [header(), event_pb2.Event(step=2, wall_time=1.0, summary=summary_pb2.Summary(value=values))],
    )
    ld = tbkit.read(str(tmp_path))
    img = ld.images().iloc[0]
    assert (img["width"], img["height"], img["format"], img["data"]) == (3, 2, "png", png)
    snd = ld.audio().iloc[0]
    assert (snd["data"], snd["label"]) == (b"RIFFxxxx", "")
    tags = ld.tags().set_index("tag")
    assert tags.loc["img", "plugin"] == "images" and tags.loc["snd", "data_class"] == "blob_sequence"


def test_metadata_is_remembered_from_the_first_value(tmp_path):
    meta = create_summary_metadata(display_name="Loss!", description="the loss")
    events = [header(), _tensor_event("loss", 1, np.float32(1), meta)] + [
        _tensor_event("loss", s, np.float32(s)) for s in (2, 3)
    ]
    write(tmp_path / "run", events)
    ld = tbkit.read(str(tmp_path))
    assert ld.scalars()["step"].tolist() == [1, 2, 3]
    row = ld.tags().iloc[0]
    assert (row["display_name"], row["description"], row["plugin"]) == ("Loss!", "the loss", "scalars")


def test_newer_plugin_version_is_refused_with_one_warning(tmp_path):
    meta = create_summary_metadata()
    meta.plugin_data.content = plugins_pb2.ScalarPluginData(version=99).SerializeToString()
    events = [header(), _tensor_event("future", 1, np.float32(1), meta)] + [
        _tensor_event("future", s, np.float32(s)) for s in (2, 3)
    ]
    events.append(simple("fine", 4, 4.0))
    write(tmp_path / "run", events)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ld = tbkit.read(str(tmp_path))
        df = ld.scalars()
    assert df["tag"].tolist() == ["fine"]
    assert len(caught) == 1 and "newer version" in str(caught[0].message)
    assert ld.problems()["reason"].str.contains("future").tolist() == [True]


def test_unknown_plugin_tensors_are_kept_as_tensors(tmp_path):
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom")
    )
    write(
        tmp_path / "run",
        [header(), _tensor_event("c", 1, np.float32(5), meta), _tensor_event("c", 2, np.float32(6))],
    )
    ld = tbkit.read(str(tmp_path))
    assert ld.scalars().empty
    t = ld.tensors(plugin="custom")
    assert t["step"].tolist() == [1, 2] and [v.item() for v in t["value"]] == [5.0, 6.0]


def test_discovery_runs_hidden_dirs_and_file_order(tmp_path):
    write(tmp_path, [header(), simple("root", 1, 1.0)])
    write(tmp_path / "a" / "b", [header(), simple("x", 1, 1.0)], name="events.out.tfevents.2.host")
    write(tmp_path / "a" / "b", [header(), simple("x", 2, 2.0)], name="events.out.tfevents.1.host")
    write(tmp_path / ".hidden", [header(), simple("x", 1, 1.0)])
    (tmp_path / "a" / "notes.txt").write_text("not events")
    ld = tbkit.read(str(tmp_path))
    assert ld.runs()["run"].tolist() == [".", "a/b"]
    df = ld.scalars()
    assert df[df.run == "a/b"]["step"].tolist() == [2, 1]  # files in name order
    assert tbkit.read(str(tmp_path), runs="a/.*").runs()["run"].tolist() == ["a/b"]
    assert tbkit.read(str(tmp_path), tags=["root"]).scalars()["tag"].tolist() == ["root"]


def test_memory_filesystem(tmp_path):
    import fsspec

    fs = fsspec.filesystem("memory")
    with fs.open("/tbkit-reader-test/run1/events.out.tfevents.1.h", "wb") as f:
        f.write(records([header(), simple("m", 1, 3.0)]))
    try:
        assert _scalars("memory://tbkit-reader-test") == [("m", 1, 3.0)]
    finally:
        fs.rm("/tbkit-reader-test", recursive=True)


def test_graph_def_becomes_a_blob_sequence(tmp_path):
    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="a", op="Const")]).SerializeToString()
    write(tmp_path / "run", [header(), event_pb2.Event(step=0, wall_time=1.0, graph_def=graph)])
    provider = tbkit.read(str(tmp_path)).provider
    seqs = provider.read_blob_sequences("graphs")
    (datum,) = seqs["run"]["__run_graph__"]
    assert provider.read_blob(datum.values[0].blob_key) == graph


@pytest.mark.parametrize("step", [0, 1, 127, 128, 2**31, 2**63 - 1, -5])
def test_fast_path_and_proto_parse_agree_on_steps(tmp_path, step):
    write(tmp_path / "run", [header(), simple("s", step, 1.25, wall_time=3.5)])
    (event,) = list(tbkit.summary_iterator(str(next((tmp_path / "run").iterdir()))))[1:]
    df = tbkit.read(str(tmp_path)).scalars()
    assert df["step"].tolist() == [event.step] == [step]
    assert (df["wall_time"].tolist(), df["value"].tolist()) == ([3.5], [1.25])
