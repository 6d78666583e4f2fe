"""TBKIT_NATIVE chooses the path; the installed package uses the compiled core; falling back says so once."""

from __future__ import annotations

import os
import warnings

import pytest

from tbkit.record import native


@pytest.fixture
def absent(monkeypatch):
    """Pretend the compiled core did not import."""
    monkeypatch.setattr(native, "_loaded", True)
    monkeypatch.setattr(native, "_module", None)
    monkeypatch.setattr(native, "_reason", "ImportError: No module named 'tbkit.record._native'")
    monkeypatch.setattr(native, "_warned", False)


@pytest.mark.skipif(os.environ.get(native.ENV, "") == "0", reason="TBKIT_NATIVE=0 forces pure Python")
def test_installed_package_uses_the_compiled_core(monkeypatch):
    """Proves that the package's own build compiled the core (CI installs with pip)."""
    monkeypatch.delenv(native.ENV, raising=False)
    assert native.why_absent() is None, native.why_absent()
    assert native.selected() == "native"
    module = native.core()
    assert module is not None and module.__file__.endswith((".so", ".pyd"))
    assert module.__name__ == "tbkit.record._native"


def test_zero_forces_pure_python(monkeypatch):
    monkeypatch.setenv(native.ENV, "0")
    assert native.core() is None and native.selected() == "python"


def test_one_requires_the_compiled_core(monkeypatch, absent):
    monkeypatch.setenv(native.ENV, "1")
    with pytest.raises(native.NativeUnavailableError, match="TBKIT_NATIVE=1") as info:
        native.core()
    assert "No module named" in str(info.value)
    from tbkit.errors import TbkitError

    assert isinstance(info.value, TbkitError)


def test_falling_back_warns_once_with_the_reason(monkeypatch, absent):
    monkeypatch.delenv(native.ENV, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert native.core() is None
        assert native.core() is None
        from tbkit.record.framing import encode_records
        from tbkit.record.scan import scan_records

        assert scan_records(encode_records([b"ab"])).lengths.tolist() == [2]  # the Python path runs
    fallbacks = [w for w in caught if issubclass(w.category, native.NativeFallbackWarning)]
    assert len(fallbacks) == 1
    assert "No module named" in str(fallbacks[0].message) and "TBKIT_NATIVE=0" in str(fallbacks[0].message)


def test_zero_is_silent_even_when_absent(monkeypatch, absent):
    monkeypatch.setenv(native.ENV, "0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native.core() is None
