"""Which implementation of the reader's hot path runs: the compiled core or pure Python.

The compiled core, ``tbkit.record._native`` (C, built by ``pip install``; docs/native.md),
does the framing and checksums of :func:`tbkit.record.scan.scan_records`, the scalar
decoding of :func:`tbkit.reader.fastscalar.extract`, the legacy histogram migration of
:func:`tbkit.plugins.histograms.decode.migrate` and the writer's scalar batches
(:class:`tbkit.writer._scalars.ScalarBatchEncoder`, through :func:`writer_core`), with the
same results. Each asks :func:`core` at each call:

* ``TBKIT_NATIVE`` unset (or empty): the compiled core when it imports, else pure Python;
  falling back says so once per process, by a :class:`NativeFallbackWarning` that names
  the reason (the import error);
* ``TBKIT_NATIVE=0``: pure Python, always, silently;
* ``TBKIT_NATIVE=1``: the compiled core, or :class:`NativeUnavailableError` when it is absent.

Example:
    >>> import os
    >>> os.environ.get("TBKIT_NATIVE") == "0" or core() is not None or why_absent() is not None
    True
"""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from types import ModuleType

from tbkit.errors import NativeUnavailableError

__all__ = [
    "ENV",
    "NativeFallbackWarning",
    "NativeUnavailableError",
    "core",
    "selected",
    "why_absent",
    "writer_core",
]

ENV = "TBKIT_NATIVE"
_MODULE = "tbkit.record._native"

_lock = threading.Lock()
_loaded = False
_module: ModuleType | None = None
_reason: str | None = None
_warned = False


# The environment's own mapping and the key in its form (CPython's os.environ keeps one, kept
# in step by os.environ's setters): core() runs per histogram record, and os.environ.get
# encodes the key and decodes the value at each call. Elsewhere, os.environ itself.
_raw_environ = getattr(os.environ, "_data", None)
try:
    _raw_key = os.environ.encodekey(ENV)  # type: ignore[attr-defined]
except (AttributeError, TypeError, ValueError):  # pragma: no cover - another Python
    _raw_environ = None
_decoded: tuple[object, str] = (None, "")  # the last raw value read and its meaning


def _choice() -> str:
    """``TBKIT_NATIVE``'s value, stripped ("" when unset)."""
    global _decoded
    if not isinstance(_raw_environ, dict):
        return os.environ.get(ENV, "").strip()
    raw = _raw_environ.get(_raw_key)
    if raw is None:
        return ""
    last, choice = _decoded
    if raw is not last:
        choice = os.environ.decodevalue(raw).strip()  # type: ignore[attr-defined]
        _decoded = (raw, choice)
    return choice


class NativeFallbackWarning(RuntimeWarning):
    """The compiled core is absent: tbkit reads on its (slower) pure-Python path."""


def _load() -> ModuleType | None:
    global _loaded, _module, _reason
    if not _loaded:
        with _lock:
            if not _loaded:
                try:
                    _module = importlib.import_module(_MODULE)
                except ImportError as exc:
                    _module, _reason = None, f"{type(exc).__name__}: {exc}"
                _loaded = True
    return _module


def why_absent() -> str | None:
    """Why the compiled core does not import (None when it does).

    Example:
        >>> why_absent() is None or isinstance(why_absent(), str)
        True
    """
    _load()
    return _reason


def core() -> ModuleType | None:
    """The compiled core to use now, or None for the pure-Python path (see the module doc).

    Raises:
        NativeUnavailableError: ``TBKIT_NATIVE=1`` and the compiled core does not import.
    """
    global _warned
    choice = _choice()
    if choice == "0":
        return None
    module = _load()
    if module is not None:
        return module
    if choice == "1":
        raise NativeUnavailableError(
            f"{ENV}=1 asks for tbkit's compiled core ({_MODULE}), which does not import ({_reason}); "
            "reinstall tbkit where a C compiler and the Python headers are present, or unset "
            f"{ENV} to read on the pure-Python path"
        )
    if not _warned:
        _warned = True
        warnings.warn(
            f"tbkit's compiled core ({_MODULE}) is absent ({_reason}): reading on the slower "
            f"pure-Python path. Reinstall tbkit with a C compiler to build it, or set {ENV}=0 "
            "to choose the pure-Python path and silence this warning.",
            NativeFallbackWarning,
            stacklevel=3,
        )
    return None


def writer_core() -> ModuleType | None:
    """The compiled core for the writer's scalar batches, or None for its NumPy encoder.

    As :func:`core` chooses, except that an absent core is never an error or a warning here
    (the writer works as fast without it; the reader says when it falls back), and a core
    built before it had ``encode_scalars`` counts as absent.

    Example:
        >>> writer_core() is None or hasattr(writer_core(), "encode_scalars")
        True
    """
    if _choice() == "0":
        return None
    module = _load()
    return module if module is not None and hasattr(module, "encode_scalars") else None


def selected() -> str:
    """``"native"`` or ``"python"``: the path :func:`core` chooses now.

    Example:
        >>> selected() in ("native", "python")
        True
    """
    return "python" if core() is None else "native"
