"""Masked CRC-32C (Castagnoli), as TFRecord files use it.

The hardware-backed ``google-crc32c`` package is used when it imports; otherwise a
pure-Python table implementation gives identical results (only slower).
"""

from __future__ import annotations

from collections.abc import Callable

_MASK_DELTA = 0xA282EAD8
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
        return None
    if google_crc32c.implementation != "c":  # pragma: no cover - depends on the wheel
        return None
    return google_crc32c.value


crc32c: Callable[[bytes], int] = _load_native() or crc32c_python


def mask(crc: int) -> int:
    """Apply TFRecord's CRC mask: rotate right by 15 bits and add a constant, mod 2**32."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """The masked CRC-32C of ``data``, as stored in a TFRecord header and footer."""
    return mask(crc32c(data))
