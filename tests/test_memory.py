"""Heap settings for long-lived processes (glibc)."""

from __future__ import annotations

import sys

import pytest

from tbkit._memory import release_free_memory, settle_heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_settle_heap_applies_on_glibc():
    assert settle_heap() is True
    release_free_memory()  # still works after the settings change
