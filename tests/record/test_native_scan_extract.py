"""The fused framing-and-scalars pass (fastscalar.scan_extract) and its tag filter, on both paths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.proto import event_pb2, histogram_pb2, summary_pb2
from tbkit.reader import fastscalar
from tbkit.record.framing import encode_records
from tests.record._damage import KINDS, damage
from tests.record._paths import path, scan_extract_both
from tests.record.test_native import _event, _value, scalar_events

WANTED = {"loss", "a", "keep/me", "é/ü"}


def keep(tag: str) -> bool:
    return tag in WANTED


def _image(tag: str, step: int) -> bytes:
    image = summary_pb2.Summary.Image(height=1, width=1, colorspace=3, encoded_image_string=b"\x89PNG" * 4)
    return _event(step, 2.0, [summary_pb2.Summary.Value(tag=tag, image=image)])


def _histogram(tag: str, step: int) -> bytes:
    histo = histogram_pb2.HistogramProto(min=0, max=1, num=2, sum=1, bucket_limit=[0.5, 1], bucket=[1, 1])
    return _event(step, 3.0, [summary_pb2.Summary.Value(tag=tag, histo=histo)])


def _file_version() -> bytes:
    return event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString()


other_events = st.one_of(
    st.builds(_image, st.sampled_from(["loss", "img", "keep/me", "b"]), st.integers(0, 5)),
    st.builds(_histogram, st.sampled_from(["a", "w", "é/ü"]), st.integers(0, 5)),
    st.just(_file_version()),
    st.just(_event(1, 1.0, [_value("loss", "simple", 1.0), _value("other", "simple", 2.0)])),
)
records = st.lists(st.one_of(scalar_events(), other_events), min_size=1, max_size=20)


@st.composite
def damaged_logs(draw) -> bytes:
    """Event records (scalars of many layouts, images, histograms, two-value summaries), damaged."""
    buf = bytearray(encode_records(draw(records)))
    for _ in range(draw(st.integers(0, 4))):
        how, pos = draw(st.sampled_from(KINDS)), draw(st.integers(0, len(buf)))
        damage(draw, buf, how, pos, record=st.one_of(scalar_events(), other_events), insert_max=30)
    return bytes(buf)


@settings(max_examples=300, deadline=None)
@given(damaged_logs(), st.booleans(), st.sampled_from([None, keep, lambda tag: False]))
def test_scan_extract_agrees_on_damaged_logs(buf, resyncing, chooser):
    _, fast = scan_extract_both(buf, resyncing=resyncing, keep=chooser)
    if chooser is not None:
        assert all(chooser(tag) for tag in fast.tags)


@settings(max_examples=100, deadline=None)
@given(damaged_logs(), st.data())
def test_scan_extract_agrees_when_resumed(buf, data):
    cut = data.draw(st.integers(0, len(buf)))
    first, _ = scan_extract_both(buf[:cut], keep=keep)
    scan_extract_both(buf, first.end, resyncing=first.resyncing, keep=keep)


def test_records_of_refused_tags_are_framed_not_checked():
    """A bad data checksum in a record of a tag not asked for is no problem; in one asked for it is."""
    raws = [_event(s, 1.0, [_value("noise" if s % 2 else "loss", "simple", s)]) for s in range(1, 7)]
    raws.append(_image("img", 1))
    raws.append(_histogram("a", 2))
    buf = bytearray(encode_records(raws))
    offsets = np.cumsum([0] + [len(r) + 16 for r in raws])
    for i in (0, 1, 6):  # noise (refused), loss (wanted), img (refused): a data byte flipped
        buf[int(offsets[i]) + 12 + len(raws[i]) - 1] ^= 0xFF
    scan, fast = scan_extract_both(bytes(buf), keep=keep)
    assert scan.problems == [(int(offsets[1]), "bad data checksum")]
    assert fast.tags == ["loss"] and fast.steps.tolist() == [4, 6]
    # the histogram of "a" (kept) stays for the protobuf parse; noise and img are not listed
    assert len(scan.starts) == 3 and not fast.handled[-1]
    whole, _ = scan_extract_both(bytes(buf))
    assert [p[0] for p in whole.problems] == [int(offsets[i]) for i in (0, 1, 6)]


def test_keep_is_asked_once_per_tag_and_its_errors_propagate():
    raws = [_event(s, 1.0, [_value(f"t{s % 3}", "simple", s)]) for s in range(30)]
    buf = encode_records(raws)
    for choice in ("1", "0"):
        asked: list[str] = []

        def chooser(tag: str, asked: list[str] = asked) -> bool:
            asked.append(tag)
            return tag == "t1"

        with path(choice):
            _, fast = fastscalar.scan_extract(buf, keep=chooser)
        assert fast.tags == ["t1"] and len(fast.values) == 10
        assert sorted(set(asked)) == ["t0", "t1", "t2"] and len(asked) <= 6

        def broken(tag: str) -> bool:
            raise KeyError(tag)

        with path(choice), pytest.raises(KeyError):
            fastscalar.scan_extract(buf, keep=broken)


def test_peek_tags_by_hand():
    raws = [
        _event(1, 1.0, [_value("loss", "simple", 1.0)]),
        _image("img", 2),
        _event(1, 1.0, [_value("x", "simple", 1.0), _value("y", "simple", 2.0)]),  # two values
        _file_version(),
        _event(1, 1.0, []),
    ]
    lengths = np.array([len(r) for r in raws], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    buf = b"".join(raws)
    ok, pos, length = fastscalar.peek_tags(buf, starts, lengths)
    assert ok.tolist() == [True, True, False, False, False]
    found = [buf[p : p + n] for p, n in zip(pos[ok].tolist(), length[ok].tolist(), strict=True)]
    assert found == [b"loss", b"img"]


def test_known_verdicts_spare_asking_again():
    raws = [_event(s, 1.0, [_value(f"t{s % 3}", "simple", s)]) for s in range(1, 31)]
    raws.append(_image("img", 1))
    buf = encode_records(raws)
    asked: list[str] = []

    def chooser(tag: str) -> bool:
        asked.append(tag)
        return tag == "t1"

    known: dict[bytes, bool] = {}
    with path("1"):
        first = fastscalar.scan_extract(buf, keep=chooser, known=known)
        assert known == {b"t0": False, b"t1": True, b"t2": False, b"img": False}
        del asked[:]
        again = fastscalar.scan_extract(buf, keep=chooser, known=known)
    assert asked == ["t1"]  # the scalar tags kept are still named once; refused ones are not asked
    assert first[0].starts.tolist() == again[0].starts.tolist() and again[1].tags == ["t1"]
    _, fast = scan_extract_both(buf, keep=chooser)
    assert fast.values.tolist() == again[1].values.tolist()
    with path("1"), pytest.raises(TypeError):
        fastscalar.scan_extract(buf, keep=chooser, known={"t1": True})
