"""Masked CRC-32C (Castagnoli), as TFRecord files use it.

The hardware-backed ``google-crc32c`` package is used when it imports; otherwise tbkit's
compiled core (``tbkit.record._native``, unless ``TBKIT_NATIVE=0``); otherwise a
pure-Python table implementation gives identical results (only slower).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

MASK_DELTA = 0xA282EAD8
_POLY = 0x82F63B78  # CRC-32C, reflected


def _make_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def crc32c_python(data: bytes | bytearray | memoryview) -> int:
    """CRC-32C of ``data`` in pure Python (the fallback implementation)."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _load_native() -> Callable[[bytes], int] | None:
    try:
        import google_crc32c
    except ImportError:  # pragma: no cover - depends on the environment
        pass
    else:
        if google_crc32c.implementation == "c":  # pragma: no branch - depends on the wheel
            value = google_crc32c.value

            def of_any_buffer(data: bytes) -> int:  # google_crc32c takes bytes alone
                return value(data if isinstance(data, bytes) else bytes(data))

            return of_any_buffer
    return _load_core()


def _load_core() -> Callable[[bytes], int] | None:
    """tbkit's own compiled CRC-32C, when it is built and not refused by ``TBKIT_NATIVE=0``."""
    from tbkit.record import native

    if os.environ.get(native.ENV, "").strip() == "0" or native.why_absent() is not None:
        return None
    module = native.core()
    return None if module is None else module.crc32c


crc32c: Callable[[bytes], int] = _load_native() or crc32c_python


def mask(crc: int) -> int:
    """Apply TFRecord's CRC mask: rotate right by 15 bits and add a constant, mod 2**32."""
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """The masked CRC-32C of ``data``, as stored in a TFRecord header and footer."""
    return mask(crc32c(data))


_linear = np.zeros((1, 256), dtype=np.uint32)
_TABLE_NP = np.array(_TABLE, dtype=np.uint32)


def linear_table(max_distance: int) -> np.ndarray:
    """The linear part of CRC-32C, by a byte's distance to the end of the message.

    CRC-32C is affine in its input: for two messages of the same length,
    ``crc(a ^ b) == crc(a) ^ crc(b) ^ crc(zeros)``, and the part a single byte ``v`` adds
    depends only on ``v`` and how many bytes from the end it stands (1 for the last byte).
    Row ``d`` of the returned ``uint32`` array holds that part for every ``v`` at distance
    ``d`` (row 0 is zero); rows are built by a recurrence and cached.
    """
    global _linear
    table = _linear  # one read: other threads may swap in a longer table meanwhile
    have = len(table) - 1
    if max_distance > have:
        rows = [table]
        row = table[-1] if have else _TABLE_NP.copy()
        if not have:
            rows.append(row[None, :])
        for _ in range(max(have, 1), max_distance):
            row = _TABLE_NP[row & 0xFF] ^ (row >> 8)
            rows.append(row[None, :])
        table = np.concatenate(rows)
        if len(table) > len(_linear):
            _linear = table
    return table


def patched_crcs(base: np.ndarray, distances: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """CRC-32C of many copies of templates that differ from them at a few bytes, vectorised.

    Args:
        base: ``(n,)`` CRC of each copy's template, which holds zero at every varying byte.
        distances: ``(n, p)`` distance to the end of the message of each varying byte
            (0 for a column that does not apply to that copy).
        columns: ``(n, p)`` uint8, the copy's bytes at those places.

    Returns:
        The ``(n,)`` unmasked CRCs as ``uint32``.
    """
    table = linear_table(int(distances.max()))
    parts = table.reshape(-1)[distances * 256 + columns]
    return np.bitwise_xor.reduce(parts, axis=1) ^ base.astype(np.uint32)


def mask_array(crcs: np.ndarray) -> np.ndarray:
    """:func:`mask` over a NumPy array of CRCs; returns ``uint32``."""
    c = crcs.astype(np.uint64)
    return ((((c >> 15) | (c << 17)) + MASK_DELTA) & 0xFFFFFFFF).astype(np.uint32)
