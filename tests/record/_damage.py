"""The damage the record-layer fuzz tests do to a buffer of framed records (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tbkit.record.framing import encode_record

KINDS = ["flip", "truncate", "insert", "record_inside"]


def damage(draw: Any, buf: bytearray, how: str, pos: int, *, record: Any, insert_max: int) -> None:
    """Do the damage ``how`` (one of :data:`KINDS`) at ``pos`` of ``buf``, in place: a flipped
    byte, a cut, inserted garbage, or a whole record drawn from ``record`` put inside."""
    if how == "flip":
        if pos < len(buf):
            buf[pos] ^= draw(st.integers(1, 255))
    elif how == "truncate":
        del buf[pos:]
    elif how == "insert":
        buf[pos:pos] = draw(st.binary(min_size=1, max_size=insert_max))
    elif how == "record_inside":
        buf[pos:pos] = encode_record(draw(record))
    else:
        raise ValueError(f"no damage called {how!r}")
