"""CRC-32C: the pure-Python fallback against google-crc32c, the mask, and a forced fallback."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import google_crc32c
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tbkit.record import crc, framing


def _mask_reference(value: int) -> int:
    # TFRecord's mask, as specified: rotate right by 15 bits, add 0xa282ead8, mod 2**32.
    rotated = ((value >> 15) | (value << 17)) & 0xFFFFFFFF
    return (rotated + 0xA282EAD8) % (1 << 32)


def test_check_value_of_both_paths() -> None:
    # The standard CRC-32C check value (RFC 3720, appendix B.4).
    assert crc.crc32c_python(b"123456789") == 0xE3069283
    assert google_crc32c.value(b"123456789") == 0xE3069283
    assert crc.crc32c(b"123456789") == 0xE3069283


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # RFC 3720 B.4 test vectors.
        (bytes(32), 0x8A9136AA),
        (b"\xff" * 32, 0x62A8AB43),
        (bytes(range(32)), 0x46DD794E),
        (bytes(range(31, -1, -1)), 0x113FDB5C),
    ],
)
def test_rfc3720_vectors(data: bytes, expected: int) -> None:
    assert crc.crc32c_python(data) == expected
    assert crc.crc32c(data) == expected


def test_empty_input() -> None:
    assert crc.crc32c_python(b"") == google_crc32c.value(b"") == 0


@given(st.binary(max_size=4096))
def test_fallback_matches_google_crc32c(data: bytes) -> None:
    assert crc.crc32c_python(data) == google_crc32c.value(data)


@given(st.binary(max_size=512))
def test_fallback_accepts_bytearray_and_memoryview(data: bytes) -> None:
    expected = google_crc32c.value(data)
    assert crc.crc32c_python(bytearray(data)) == expected
    assert crc.crc32c_python(memoryview(data)) == expected


@given(st.integers(min_value=0, max_value=0xFFFFFFFF))
def test_mask_formula(value: int) -> None:
    masked = crc.mask(value)
    assert masked == _mask_reference(value)
    assert 0 <= masked <= 0xFFFFFFFF


@given(st.binary(max_size=2048))
def test_masked_crc32c_of_both_paths_match(data: bytes) -> None:
    expected = _mask_reference(google_crc32c.value(data))
    assert crc.masked_crc32c(data) == expected
    assert crc.mask(crc.crc32c_python(data)) == expected


def test_native_path_is_in_use_when_google_crc32c_is_the_c_build() -> None:
    if google_crc32c.implementation != "c":
        pytest.skip("google-crc32c is the pure-Python build here")
    assert crc.crc32c is not crc.crc32c_python


def test_monkeypatched_fallback_encodes_identical_records(monkeypatch: pytest.MonkeyPatch) -> None:
    payloads = [b"", b"x", bytes(range(256)) * 5, "événement".encode()]
    native = [framing.encode_record(p) for p in payloads]
    # framing binds crc32c at import, so both module attributes are replaced.
    monkeypatch.setattr(crc, "crc32c", crc.crc32c_python)
    monkeypatch.setattr(framing, "crc32c", crc.crc32c_python)
    assert [framing.encode_record(p) for p in payloads] == native
    buf = b"".join(native)
    assert [data for _, data in framing.iter_records(buf, path="mem")] == payloads


_FALLBACK_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    sys.modules["google_crc32c"] = None  # makes `import google_crc32c` fail
    os.environ["TBKIT_NATIVE"] = "0"  # and refuses tbkit's own compiled CRC
    from tbkit.record import crc, framing
    from tbkit.writer.event_file import EventFileWriter
    from tbkit.plugins.histograms.summary import histogram_pb, equal_width_buckets
    import numpy as np

    w = EventFileWriter(sys.argv[1], flush_secs=60)
    for i in range(50):
        w.add_scalar("loss", 1.0 / (i + 1), i, 1000.0 + i)
    w.add_summary(histogram_pb("h", equal_width_buckets(np.arange(100.0))), 7, 2000.0)
    w.close()
    print(json.dumps({
        "fallback": crc.crc32c is crc.crc32c_python and framing.crc32c is crc.crc32c_python,
        "path": w.path,
        "record": framing.encode_record(b"hello tbkit").hex(),
    }))
    """
)


def test_forced_fallback_writes_byte_identical_event_file(tmp_path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _FALLBACK_SCRIPT, str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(out)
    assert result["fallback"] is True
    assert bytes.fromhex(result["record"]) == framing.encode_record(b"hello tbkit")

    with open(result["path"], "rb") as f:
        written = f.read()
    records = list(framing.iter_records(written, path=result["path"]))  # checked with the native CRC
    assert len(records) == 1 + 50 + 1
    # Re-framing every payload with the native CRC gives back the file byte for byte.
    assert framing.encode_records(data for _, data in records) == written


def test_compiled_core_crc_without_google_crc32c() -> None:
    pytest.importorskip("tbkit.record._native", reason="the compiled core is not built")
    script = (
        "import sys, os; sys.modules['google_crc32c'] = None; os.environ.pop('TBKIT_NATIVE', None)\n"
        "from tbkit.record import crc, _native\n"
        "assert crc.crc32c is _native.crc32c, crc.crc32c\n"
        "print(crc.crc32c(b'123456789'))"
    )
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    assert int(out.stdout) == 0xE3069283
