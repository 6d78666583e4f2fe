"""The distinct tags of many records at once, told apart by their bytes (the NumPy path).

The pure-Python scalar path (:func:`tbkit.reader.fastscalar.extract_python`) and its tag
filter find each record's tag in place (an offset and a length into the window's bytes);
:func:`tag_ids` groups them and decodes each distinct tag once. Tags are compared as
little-endian 8-byte words: a small table indexed by a multiplicative hash of the words
groups them in a few linear passes (:func:`groups`), and each record's words are then
checked against its group's, so a hash collision never merges two tags.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TABLE_BITS", "byte_view", "groups", "tag_ids"]

TABLE_BITS = 12  # slots of the table that groups a window's tags


def byte_view(buf: bytes, dtype: str, size: int) -> np.ndarray:
    """Every ``size``-byte word of ``buf`` at every byte offset, as ``dtype`` (a strided view)."""
    return np.ndarray((max(len(buf) - size + 1, 0),), dtype=dtype, buffer=buf, offset=0, strides=(1,))


def groups(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct values of ``key``: a member of each, and each one's group.

    A window holds few distinct tags, so a small table indexed by a multiplicative hash
    of the key groups them in a few linear passes; when two distinct keys share a slot,
    ``np.unique`` (a sort) does it instead.
    """
    slot = ((key * np.uint64(0xD6E8FEB86659FD93)) >> np.uint64(64 - TABLE_BITS)).astype(np.intp)
    member = np.full(1 << TABLE_BITS, -1, dtype=np.intp)
    member[slot] = np.arange(len(key))  # some member of each slot
    if (key == key[member[slot]]).all():
        used = np.flatnonzero(member >= 0)
        group_of_slot = np.zeros(1 << TABLE_BITS, dtype=np.intp)
        group_of_slot[used] = np.arange(len(used))
        return member[used], group_of_slot[slot]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def tag_ids(
    buf: bytes | memoryview, tag_pos: np.ndarray, tag_len: np.ndarray
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Distinct tags and each record's tag id (-1 where the tag is not valid UTF-8).

    Tags are compared as little-endian 8-byte words (the last one masked to the tag's
    length): records are grouped by a hash of their words (:func:`groups`), and each
    record's words are then checked against its group's; a record that differs (a hash
    collision) keeps id -1 and is read by the slow path.
    """
    words8 = byte_view(buf, "<u8", 8)
    ids = np.full(len(tag_pos), -1, dtype=np.int32)
    tags: list[str] = []
    known: dict[bytes, int] = {}
    for length in np.unique(tag_len).tolist():
        sel = np.flatnonzero(tag_len == length)
        pos = tag_pos[sel]
        words = [words8[pos + 8 * i] for i in range((length + 7) // 8)]
        if length % 8:
            words[-1] &= np.uint64((1 << (8 * (length % 8))) - 1)
        key = np.zeros(len(sel), dtype=np.uint64)
        for i, w in enumerate(words):
            key = (key ^ w) * np.uint64(0x9E3779B97F4A7C15 + 2 * i)
        first, inverse = groups(key)
        rep = first[inverse]
        exact = np.ones(len(sel), dtype=bool)
        for w in words:
            exact &= w == w[rep]
        local = np.array([_intern(buf, int(pos[f]), length, tags, known) for f in first], dtype=np.int32)
        ids[sel[exact]] = local[inverse[exact]]
    return tags, ids, ids >= 0


def _intern(buf: bytes | memoryview, pos: int, length: int, tags: list[str], known: dict[bytes, int]) -> int:
    raw = bytes(buf[pos : pos + length])  # hashable: a window may be a writable memoryview
    found = known.get(raw)
    if found is None:
        try:
            tag = raw.decode("utf-8")
        except UnicodeDecodeError:
            found = -1
        else:
            found = len(tags)
            tags.append(tag)
        known[raw] = found
    return found
