"""The compiled tag filter's lookups (tbkit.record._native), each branch against the pure-Python path.

The compiled walk finds a record's tag by a short layout check (a step of up to 8 varint
bytes, one-byte summary and value lengths, a record of at least 24 bytes), else by the full
peek; it looks the tag up by its length and first and last 8 bytes (4 below 8 bytes, the bytes
themselves below 4), comparing the middle of a tag longer than 16 bytes; its table grows past
32 tags. Each case below is compared with the pure-Python path, damaged records of refused
tags included.
"""

from __future__ import annotations

import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tbkit.reader import fastscalar
from tbkit.record.framing import encode_records
from tests.record._damage import KINDS, damage
from tests.record._paths import path, scan_extract_both
from tests.record.test_native import _event, _packed, _value

POOL = [
    "a",  # below 4 bytes
    "bc",
    "xyz",
    "loss",  # 4 to 7
    "acc/1",
    "train/x",
    "abcdefgh",  # 8: both words the same
    "abcdefghi",  # 9 to 16: overlapping words
    "aaaaaaaaa",  # alike but for the length
    "aaaaaaaaaa",
    "group_0/metric_0",
    "group_1/metric_0",
    "group_0/metric_1",
    "head1234" + "A" * 5 + "tail5678",  # the same first and last 8 bytes: the middle decides
    "head1234" + "B" * 5 + "tail5678",
    "head1234" + "A" * 6 + "tail5678",
    "é/ü/ö",
    "p" * 100,
    "q" * 120,  # a summary length of two varint bytes: the full peek
    "q" * 126 + "r",
    "x" * 127,
    "y" * 128,  # a tag length of two varint bytes: never peeked
]
INVALID = b"\xff\xfe/\xfd\xfc"  # a tag that is not UTF-8: never refused
_PLACEHOLDER = "ZZ/ZZ"

forms = st.sampled_from(["simple", "f32", "f64", "float_val", "double_val", "i32", "two"])
steps = st.one_of(  # varints of 1 to 10 bytes (negative steps take 10)
    st.integers(0, 300),
    st.sampled_from([2**7 - 1, 2**7, 2**14, 2**21, 2**28, 2**35, 2**42, 2**49, 2**56 - 1, 2**56, 2**63 - 1]),
    st.integers(-(2**63), -1),
)


def _record(tag: str, form: str, step: int, x: float) -> bytes:
    if form == "float_val":
        values = [_packed(tag, 1, 0x2A, struct.pack("<f", x))]
    elif form == "double_val":
        values = [_packed(tag, 2, 0x32, struct.pack("<d", x))]
    elif form == "two":
        values = [_value(tag, "simple", x), _value(tag + "2", "simple", x)]
    else:
        values = [_value(tag, form, x)]
    return _event(step, 1.5, values)


@st.composite
def tagged_records(draw) -> bytes:
    tag = draw(st.sampled_from([*POOL, _PLACEHOLDER]))
    raw = _record(tag, draw(forms), draw(steps), draw(st.floats(width=32)))
    return raw.replace(_PLACEHOLDER.encode(), INVALID) if tag == _PLACEHOLDER else raw


@st.composite
def filtered_logs(draw) -> tuple[bytes, frozenset[str]]:
    """Scalar records of the pool's tags, some damaged, and the tags kept."""
    buf = bytearray(encode_records(draw(st.lists(tagged_records(), min_size=1, max_size=25))))
    for _ in range(draw(st.integers(0, 3))):
        how, pos = draw(st.sampled_from(KINDS)), draw(st.integers(0, len(buf)))
        damage(draw, buf, how, pos, record=tagged_records(), insert_max=20)
    return bytes(buf), frozenset(draw(st.sets(st.sampled_from(POOL), max_size=6)))


@settings(max_examples=400, deadline=None)
@given(filtered_logs())
def test_filtered_scan_agrees_on_every_lookup_branch(log):
    buf, wanted = log
    _, fast = scan_extract_both(buf, keep=wanted.__contains__)
    assert set(fast.tags) <= wanted


ALIKE = [  # pairs a lookup by the wrong bytes would take for one tag
    ("bc", "bd"),
    ("xyz", "xyw"),
    ("loss", "lose"),
    ("acc/1", "acc/2"),
    ("abcdefgh", "abcdefgz"),
    ("abcdefghi", "zbcdefghi"),
    ("aaaaaaaaa", "aaaaaaaaaa"),
    ("group_0/metric_0", "group_0/metric_1"),
    ("group_0/metric_0", "group_1/metric_0"),
    ("head1234AAAAAtail5678", "head1234BBBBBtail5678"),
    ("p" * 100, "p" * 50 + "o" + "p" * 49),
    ("q" * 126 + "r", "q" * 125 + "sr"),
]


def test_tags_alike_in_the_bytes_looked_at_first_are_told_apart():
    for one, other in ALIKE:
        for first, kept in ((one, other), (other, one), (one, one), (other, other)):
            second = other if first == one else one
            order = enumerate([first, second] * 2, 1)
            raws = [_record(tag, "simple", step, float(step)) for step, tag in order]
            _, fast = scan_extract_both(encode_records(raws), keep={kept}.__contains__)
            assert fast.tags == [kept] and len(fast.values) == 2, (first, kept)


def _offsets(raws: list[bytes]) -> list[int]:
    return np.cumsum([0] + [len(r) + 16 for r in raws]).tolist()


def test_damaged_records_of_refused_tags():
    """A refused record's bad data checksum is no problem; a bad length checksum always is; a
    record whose damage made its tag one kept is checked, and its bad checksum is a problem."""
    tags = ["group_0/metric_0", "group_0/metric_1", "head1234AAAAAtail5678", "loss", "bc"]
    raws = [_record(tags[i % 5], "simple", i + 1, float(i)) for i in range(10)]  # (step 0: no step field)
    buf = bytearray(encode_records(raws))
    at = _offsets(raws)
    buf[at[1] + 12 + len(raws[1]) - 1] ^= 0x01  # metric_1 (refused): its value
    buf[at[2] + 12 + raws[2].index(b"AAAAA")] = ord("B")  # another tag of the same ends, refused
    buf[at[3] + 12 + raws[3].index(b"loss") + 3] = ord("t")  # "loss" -> "lost", kept
    buf[at[4] + 12 + raws[4].index(b"bc")] = ord("a")  # "bc" -> "ac", refused
    buf[at[6]] ^= 0x01  # metric_1 again: its length, whose checksum no longer holds
    wanted = {"group_0/metric_0", "lost"}
    scan, fast = scan_extract_both(bytes(buf), keep=wanted.__contains__)
    assert scan.problems[0] == (at[3], "bad data checksum")
    assert scan.problems[1] == (at[6], "bad length checksum")
    assert fast.tags == ["group_0/metric_0"] and fast.steps.tolist() == [1, 6]
    whole, _ = scan_extract_both(bytes(buf))
    assert [p for p in whole.problems if p[0] < at[6]] == [(at[i], "bad data checksum") for i in (1, 2, 3, 4)]


def _many_tags(count: int) -> list[str]:
    return [f"run/{i}/" + "v" * (i % 41) for i in range(count)]


def test_many_tags_grow_the_table_and_known_verdicts_carry_over():
    tags = _many_tags(300)
    raws = [_record(tags[(7 * i) % len(tags)], "simple", i + 1, float(i)) for i in range(1500)]
    buf = encode_records(raws)
    wanted = set(tags[::9])
    scan, fast = scan_extract_both(buf, keep=wanted.__contains__)
    assert set(fast.tags) == wanted
    assert len(fast.values) == sum(1 for i in range(1500) if tags[(7 * i) % 300] in wanted)
    cut = _offsets(raws)[700]
    asked: list[str] = []

    def chooser(tag: str) -> bool:
        asked.append(tag)
        return tag in wanted

    known: dict[bytes, bool] = {b"": False, b"z" * 200: False}  # never peeked at: left alone
    with path("1"):
        first, part = fastscalar.scan_extract(buf[:cut], keep=chooser, known=known)
        second, rest = fastscalar.scan_extract(buf, first.end, keep=chooser, known=known)
    assert {t.encode() for t in tags} <= set(known)
    assert known[tags[9].encode()] and not known[tags[1].encode()]
    assert len(asked) == len(set(asked)) + len(set(part.tags)) + len(set(rest.tags))  # kept tags named again
    starts = np.concatenate([first.starts, second.starts]).tolist()
    assert starts == scan.starts.tolist() and first.problems == second.problems == []
    assert part.values.tolist() + rest.values.tolist() == fast.values.tolist()


def test_invalid_tags_and_tags_of_two_length_bytes_are_never_refused():
    raws = [
        _record(_PLACEHOLDER, "simple", 3, 1.0).replace(_PLACEHOLDER.encode(), INVALID),
        _record("y" * 128, "simple", 4, 2.0),
        _record("loss", "simple", 5, 3.0),
    ]
    buf = encode_records(raws)
    scan, fast = scan_extract_both(buf, keep=lambda tag: False)
    assert len(scan.starts) == 2 and fast.tags == [] and not fast.handled.any()
