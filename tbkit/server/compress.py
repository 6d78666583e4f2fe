"""Compressed answers: gzip (brotli when that package happens to be installed) when the client asks.

:func:`chosen_encoding` reads a request's ``Accept-Encoding``; :func:`compress_response`
compresses a finished in-memory answer (JSON, the page) of a compressible type and at
least :data:`MIN_SIZE` bytes; :class:`CompressedFiles` keeps each static file's compressed
bytes in memory, made once per file version (``plotly.min.js``: 4.8 MB, 1.5 MB gzipped),
not per request. Every answer whose bytes could depend on ``Accept-Encoding`` says
``Vary: Accept-Encoding``, compressed or not, so caches keep the two apart.

Example:
    >>> chosen_encoding("gzip, deflate")
    'gzip'
    >>> chosen_encoding("gzip;q=0, identity") is None
    True
"""

from __future__ import annotations

import gzip
import importlib
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from flask import Response

__all__ = [
    "ENCODINGS",
    "MIN_SIZE",
    "CompressedFiles",
    "chosen_encoding",
    "compress",
    "compress_response",
    "compressible",
]

# Smaller answers gain less than the compression header costs them.
MIN_SIZE = 1024
# Levels: static files are compressed once (6: within 1% of gzip's best, twice as fast as 9);
# answers per request, where speed counts more: on a chart answer of 20 runs x 1,000 points
# (1 MB of JSON), 3 takes 11 ms for 286 KB, 6 takes 37 ms for 283 KB.
STATIC_LEVEL = 6
DYNAMIC_LEVEL = 3
_COMPRESSIBLE = ("text/", "application/json", "application/javascript", "image/svg+xml")


def _brotli() -> ModuleType | None:
    for name in ("brotli", "brotlicffi"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


_BROTLI = _brotli()


def _gzip(data: bytes, level: int) -> bytes:
    return gzip.compress(data, compresslevel=level, mtime=0)


def _br(data: bytes, level: int) -> bytes:
    assert _BROTLI is not None
    # Brotli's quality scale is 0-11; gzip-like levels map to its fast-but-good range.
    return bytes(_BROTLI.compress(data, quality=min(11, level)))


_CODERS: dict[str, Callable[[bytes, int], bytes]] = {"gzip": _gzip}
if _BROTLI is not None:
    _CODERS["br"] = _br
# The server's preference when the client accepts several equally.
ENCODINGS: tuple[str, ...] = tuple(name for name in ("br", "gzip") if name in _CODERS)


def chosen_encoding(accept_encoding: str | None) -> str | None:
    """The encoding to answer with for this ``Accept-Encoding`` header, or None for none.

    Follows the header's ``q`` weights (``q=0`` refuses, ``*`` stands for any encoding not
    named); among equally weighted ones the server prefers brotli, when installed, to gzip.
    """
    if not accept_encoding:
        return None
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[name] = weight
    best, best_weight = None, 0.0
    for name in ENCODINGS:
        weight = weights.get(name, weights.get("*", 0.0))
        if weight > best_weight:
            best, best_weight = name, weight
    return best


def compressible(mimetype: str | None) -> bool:
    """Whether answers of this type shrink when compressed (text, JSON, JavaScript, SVG)."""
    return bool(mimetype) and str(mimetype).lower().startswith(_COMPRESSIBLE)


def compress(data: bytes, encoding: str, level: int = DYNAMIC_LEVEL) -> bytes:
    """``data`` compressed with ``encoding`` (one of :data:`ENCODINGS`)."""
    return _CODERS[encoding](data, level)


def add_vary(response: Response) -> None:
    """Add ``Accept-Encoding`` to the answer's ``Vary`` header (once)."""
    response.vary.add("Accept-Encoding")


def compress_response(response: Response, accept_encoding: str | None) -> Response:
    """Compress a finished in-memory answer in place when worth it and asked for; returns it.

    Left alone: answers already encoded, streamed or file answers (static files are
    compressed by :class:`CompressedFiles`), types that do not shrink, errors other than
    4xx/5xx JSON, and answers under :data:`MIN_SIZE` bytes.
    """
    if (
        response.direct_passthrough
        or not response.is_sequence
        or "Content-Encoding" in response.headers
        or not compressible(response.mimetype)
        or response.status_code in (204, 206, 304)
        or response.status_code < 200
    ):
        return response
    data = response.get_data()
    if len(data) < MIN_SIZE:
        return response
    add_vary(response)
    encoding = chosen_encoding(accept_encoding)
    if encoding is None:
        return response
    response.set_data(compress(data, encoding))
    response.headers["Content-Encoding"] = encoding
    return response


class CompressedFiles:
    """Static files' compressed bytes, made once per file version and kept in memory.

    A file is known by its path, size and modification time: a changed file is compressed
    again. Threads asking for the same file at once wait for one compression.
    """

    def __init__(self, level: int = STATIC_LEVEL) -> None:
        self.level = level
        self._lock = threading.Lock()
        self._made: dict[tuple[Path, str], tuple[int, int, bytes]] = {}

    def get(self, path: Path, encoding: str) -> bytes:
        """``path``'s bytes compressed with ``encoding``."""
        stat = path.stat()
        with self._lock:
            found = self._made.get((path, encoding))
            if found is not None and found[:2] == (stat.st_size, stat.st_mtime_ns):
                return found[2]
            data = compress(path.read_bytes(), encoding, self.level)
            self._made[(path, encoding)] = (stat.st_size, stat.st_mtime_ns, data)
            return data
