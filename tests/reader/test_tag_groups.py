"""Grouping many records' tags by their bytes: each distinct tag once, collisions told apart."""

from __future__ import annotations

import numpy as np

from tbkit.reader import tag_groups


def test_grouping_falls_back_to_sorting_when_keys_share_a_slot():
    candidates = np.arange(1, 5000, dtype=np.uint64)  # more keys than slots: two must share one
    slots = (candidates * np.uint64(0xD6E8FEB86659FD93)) >> np.uint64(64 - tag_groups.TABLE_BITS)
    order = np.argsort(slots, kind="stable")
    same = np.flatnonzero(slots[order][1:] == slots[order][:-1])[0]
    a, b = candidates[order[same]], candidates[order[same + 1]]
    key = np.array([a, b, a, b, np.uint64(0)], dtype=np.uint64)
    first, inverse = tag_groups.groups(key)
    assert len(first) == 3 and (key[first[inverse]] == key).all()
    assert inverse[0] == inverse[2] != inverse[1] == inverse[3] != inverse[4]


def test_each_records_tag_gets_its_distinct_tags_id() -> None:
    tags = [b"loss", b"acc", b"loss", b"a/very/long/tag/name/over/16", b"acc", b"\xff\xfe"]
    buf = b"".join(tags) + bytes(8)  # padded: the last word of a tag is read whole
    pos = np.cumsum([0] + [len(t) for t in tags[:-1]]).astype(np.int64)
    lengths = np.array([len(t) for t in tags], dtype=np.int64)
    names, ids, valid = tag_groups.tag_ids(buf, pos, lengths)
    assert valid.tolist() == [True] * 5 + [False]  # not UTF-8: left to the slow path
    assert [names[i] for i in ids[valid].tolist()] == [t.decode() for t in tags[:5]]
    assert sorted(names) == ["a/very/long/tag/name/over/16", "acc", "loss"]


def test_a_window_that_is_a_writable_memoryview_gives_the_same_tags() -> None:
    buf = b"lossaccloss" + bytes(8)
    pos, lengths = np.array([0, 4, 7], dtype=np.int64), np.array([4, 3, 4], dtype=np.int64)
    expected = tag_groups.tag_ids(buf, pos, lengths)
    names, ids, valid = tag_groups.tag_ids(memoryview(bytearray(buf)), pos, lengths)  # as the loader reads
    assert names == expected[0] and sorted(names) == ["acc", "loss"]
    assert [names[i] for i in ids.tolist()] == ["loss", "acc", "loss"] and valid.all()
