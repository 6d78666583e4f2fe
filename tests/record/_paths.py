"""Run the reader's hot path on the compiled core and on pure Python, and compare (a test helper)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import numpy as np
import pytest

from tbkit.reader import fastscalar
from tbkit.record import native, scan

_native = pytest.importorskip("tbkit.record._native", reason="the compiled core is not built")


@contextlib.contextmanager
def path(choice: str) -> Iterator[None]:
    """Force ``TBKIT_NATIVE`` to ``choice`` ("0" or "1") inside the block."""
    old = os.environ.get(native.ENV)
    os.environ[native.ENV] = choice
    try:
        yield
    finally:
        if old is None:
            del os.environ[native.ENV]
        else:
            os.environ[native.ENV] = old


def scan_both(buf: bytes, start: int = 0, *, resyncing: bool = False) -> scan.RecordScan:
    """``scan_records`` on both paths; asserts they agree and returns the scan."""
    with path("1"):
        fast = scan.scan_records(buf, start, resyncing=resyncing)
    with path("0"):
        slow = scan.scan_records(buf, start, resyncing=resyncing)
    assert fast.starts.dtype == slow.starts.dtype == np.int64
    assert fast.lengths.dtype == slow.lengths.dtype == np.int64
    assert fast.starts.tolist() == slow.starts.tolist()
    assert fast.lengths.tolist() == slow.lengths.tolist()
    assert (fast.end, fast.problems, fast.resyncing) == (slow.end, slow.problems, slow.resyncing)
    assert type(fast.end) is int and type(fast.resyncing) is bool
    return fast


def _bits(a: np.ndarray) -> list[int]:
    return a.view(np.uint64).tolist()


def extract_both(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> fastscalar.FastScalars:
    """``fastscalar.extract`` on both paths; asserts the same contents and returns the result."""
    with path("1"):
        fast = fastscalar.extract(buf, starts, lengths)
    with path("0"):
        slow = fastscalar.extract(buf, starts, lengths)
    for name in ("handled", "index", "tag_ids", "kinds", "steps"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype, name
        assert a.tolist() == b.tolist(), name
    assert fast.tags == slow.tags
    assert _bits(fast.wall_times) == _bits(slow.wall_times)  # bit for bit, NaN payloads included
    assert _bits(fast.values) == _bits(slow.values)
    return fast


def _same_fast(fast: fastscalar.FastScalars, slow: fastscalar.FastScalars) -> None:
    for name in ("handled", "index", "tag_ids", "kinds", "steps"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype, name
        assert a.tolist() == b.tolist(), name
    assert fast.tags == slow.tags
    assert _bits(fast.wall_times) == _bits(slow.wall_times)
    assert _bits(fast.values) == _bits(slow.values)


def scan_extract_both(
    buf: bytes, start: int = 0, *, resyncing: bool = False, keep: fastscalar.Keep | None = None
) -> tuple[scan.RecordScan, fastscalar.FastScalars]:
    """``fastscalar.scan_extract`` on both paths; asserts the same scan and scalars, returns them.

    Also checks the pure-Python path against its definition: scan_records, then the records
    whose peeked tag ``keep`` refuses left out, then extract with ``keep``.
    """
    with path("1"):
        fast_scan, fast = fastscalar.scan_extract(buf, start, resyncing=resyncing, keep=keep)
    with path("0"):
        slow_scan, slow = fastscalar.scan_extract(buf, start, resyncing=resyncing, keep=keep)
    for a, b in ((fast_scan.starts, slow_scan.starts), (fast_scan.lengths, slow_scan.lengths)):
        assert a.dtype == b.dtype == np.int64
        assert a.tolist() == b.tolist()
    assert (fast_scan.end, fast_scan.problems, fast_scan.resyncing) == (
        slow_scan.end,
        slow_scan.problems,
        slow_scan.resyncing,
    )
    _same_fast(fast, slow)
    if keep is None:  # the fused pass is scan_records then extract
        alone = scan_both(buf, start, resyncing=resyncing)
        assert alone.starts.tolist() == fast_scan.starts.tolist() and alone.problems == fast_scan.problems
        _same_fast(fast, extract_both(buf, alone.starts, alone.lengths))
    return fast_scan, fast
