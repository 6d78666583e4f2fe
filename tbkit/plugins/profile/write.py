"""The profile kind's write side: profiler traces (Chrome trace-event JSON) for TensorBoard.

Imported by users as :mod:`tbkit.profiler` (which re-exports this module).

One layout serves both trace viewers that read TensorBoard log directories::

    <logdir>/plugins/profile/<session>/<worker>.pt.trace.json.gz

* The TensorBoard profile plugin (``tensorboard-plugin-profile``) lists every directory
  under ``<run>/plugins/profile/`` as a session and opens ``<host>.trace.json.gz`` in its
  trace viewer: here the host is shown as ``<worker>.pt``.
* ``torch-tb-profiler`` treats every directory holding ``*.pt.trace.json[.gz]`` files
  as a run (here ``<run>/plugins/profile/<session>``) and the name before
  ``.pt.trace.json`` as the worker.

``<session>`` is the local time of the export, ``YYYY_MM_DD_HH_MM_SS`` (TensorFlow's
session naming); when that session already holds a trace of the same worker, ``_1``,
``_2`` ... is appended. ``<worker>`` defaults to ``<hostname>_<pid>`` like
``torch.profiler.tensorboard_trace_handler``. Uncompressed traces
(``use_gzip=False``) are read by torch-tb-profiler only.

Example:
    >>> import torch  # doctest: +SKIP
    >>> with torch.profiler.profile(on_trace_ready=trace_handler("runs/exp1")) as prof:  # doctest: +SKIP
    ...     model(x)
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import socket
import tempfile
from collections.abc import Callable
from typing import Any

from tbkit.errors import InvalidArgumentError
from tbkit.plugins.profile.decode import PROFILE_DIR
from tbkit.record import storage

__all__ = ["load_trace", "trace_handler", "trace_path", "write_trace"]

TRACE_SUFFIX = ".pt.trace.json"
_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_LEVEL = 6


def default_worker() -> str:
    """``<hostname>_<pid>``, torch's default worker name."""
    return f"{socket.gethostname()}_{os.getpid()}"


def session_name(when: datetime.datetime | None = None) -> str:
    """A session directory name, ``YYYY_MM_DD_HH_MM_SS`` of ``when`` (default: now, local time)."""
    return (when or datetime.datetime.now()).strftime("%Y_%m_%d_%H_%M_%S")


def _check_name(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value or value in (".", "..") or "/" in value or "\\" in value or "\0" in value:
        raise InvalidArgumentError(f"{name} must be a non-empty name without path separators, got {value!r}")
    return value


def _session_dir(logdir: str, session: str) -> str:
    return storage.join(logdir, *PROFILE_DIR, _check_name(session, "session"))


def _file_name(worker: str, use_gzip: bool) -> str:
    return _check_name(worker, "worker") + TRACE_SUFFIX + (".gz" if use_gzip else "")


def trace_path(logdir: str, session: str, worker: str, *, use_gzip: bool = True) -> str:
    """``<logdir>/plugins/profile/<session>/<worker>.pt.trace.json[.gz]``.

    Example:
        >>> trace_path("runs/a", "2024_01_02_03_04_05", "host_7").endswith("host_7.pt.trace.json.gz")
        True
    """
    return storage.join(_session_dir(logdir, session), _file_name(worker, use_gzip))


def _save(logdir: str, session: str | None, worker: str, use_gzip: bool, data: bytes) -> str:
    """Write ``data`` into ``session`` (default: a new session named by the time); return the path."""
    name = _file_name(worker, use_gzip)
    if session is None:
        base = session = session_name()
        n = 0
        while storage.exists(storage.join(_session_dir(logdir, session), name)):
            n += 1
            session = f"{base}_{n}"
    directory = _session_dir(logdir, session)
    storage.makedirs(directory)
    path = storage.join(directory, name)
    storage.write_bytes(path, data)
    return path


def _check_events(value: Any) -> None:
    if isinstance(value, dict):
        events = value.get("traceEvents")
        if not isinstance(events, list):
            got = (
                "no 'traceEvents' key" if events is None else f"'traceEvents' of type {type(events).__name__}"
            )
            raise InvalidArgumentError(f"trace must be trace-event JSON with a 'traceEvents' list, got {got}")
    elif isinstance(value, list):
        events = value
    else:
        raise InvalidArgumentError(
            f"trace must be trace-event JSON (an object with 'traceEvents' or a list of events), "
            f"got a JSON {type(value).__name__}"
        )
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise InvalidArgumentError(f"trace event {i} must be a JSON object, got {type(event).__name__}")


def load_trace(trace: Any) -> tuple[bytes, bool]:
    """Validate a Chrome trace and return its bytes and whether they are gzip'ed.

    Args:
        trace: A dict (``{"traceEvents": [...], ...}``) or list of events; a path
            (``str`` or ``os.PathLike``) to a ``.json`` or ``.json.gz`` file; or the
            bytes of one (plain or gzip'ed).

    Raises:
        InvalidArgumentError: (a ``ValueError``) ``trace`` is not trace-event JSON.
        StorageError: The file cannot be read.

    Example:
        >>> load_trace({"traceEvents": []})[1]
        False
    """
    if isinstance(trace, dict | list):
        _check_events(trace)
        try:
            return json.dumps(trace, separators=(",", ":")).encode("utf-8"), False
        except (TypeError, ValueError) as exc:
            raise TypeError(f"trace is not JSON-serializable: {exc}") from exc
    if isinstance(trace, str | os.PathLike):
        path = os.fspath(trace)
        if not path.lower().endswith((".json", ".json.gz")):
            raise InvalidArgumentError(f"trace must be a path to a .json or .json.gz file, got {path!r}")
        data = storage.read_bytes(path)
    elif isinstance(trace, bytes | bytearray | memoryview):
        data = bytes(trace)
    else:
        raise TypeError(f"trace must be a dict, list, path or bytes, got {type(trace).__name__}")
    zipped = data[:2] == _GZIP_MAGIC
    try:
        text = gzip.decompress(data) if zipped else data
        value = json.loads(text)
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidArgumentError(f"trace is not trace-event JSON: {exc}") from exc
    _check_events(value)
    return data, zipped


def write_trace(
    logdir: str | os.PathLike[str], trace: Any, *, session: str | None = None, worker: str | None = None
) -> str:
    """Write a Chrome trace, gzip'ed, as ``<logdir>/plugins/profile/<session>/<worker>.pt.trace.json.gz``.

    Args:
        logdir: The run directory.
        trace: See :func:`load_trace`; validated before anything is written.
        session: The session directory (default: a new one named by the time). An
            existing trace of the same worker in a named session is replaced.
        worker: The worker (host) name; default ``<hostname>_<pid>``.

    Returns:
        The path written.

    Example:
        >>> write_trace(tmp_dir, {"traceEvents": []}, session="s1", worker="w")  # doctest: +SKIP
        '.../plugins/profile/s1/w.pt.trace.json.gz'
    """
    data, zipped = load_trace(trace)
    worker = default_worker() if worker is None else _check_name(worker, "worker")
    if session is not None:
        _check_name(session, "session")
    data = data if zipped else gzip.compress(data, _GZIP_LEVEL, mtime=0)
    return _save(os.fspath(logdir), session, worker, True, data)


def trace_handler(
    logdir: str | os.PathLike[str], worker_name: str | None = None, use_gzip: bool = True
) -> Callable[[Any], None]:
    """An ``on_trace_ready`` callback for ``torch.profiler.profile`` writing the layout above.

    Each call (each completed profiling cycle) exports the profiler's Chrome trace into a
    new session directory. Unlike ``torch.profiler.tensorboard_trace_handler`` it gzips by
    default (the TensorBoard profile plugin reads only gzip'ed traces) and it writes
    through tbkit's storage, so ``logdir`` may be an fsspec URL.

    Args:
        logdir: The run directory (the same as the ``SummaryWriter``'s to see both together).
        worker_name: Unique per process in distributed training; default ``<hostname>_<pid>``.
        use_gzip: Write ``.pt.trace.json.gz`` (default) or plain ``.pt.trace.json``.

    Returns:
        A callable taking the profiler.

    Example:
        >>> handler = trace_handler("runs/exp1", worker_name="rank0")
        >>> callable(handler)
        True
    """
    logdir = os.fspath(logdir)
    if worker_name is not None:
        _check_name(worker_name, "worker_name")

    def handle(prof: Any) -> None:
        worker = worker_name or default_worker()
        fd, tmp = tempfile.mkstemp(suffix=".json", prefix="tbkit-trace-")
        os.close(fd)
        try:
            prof.export_chrome_trace(tmp)
            with open(tmp, "rb") as f:
                data = f.read()
        finally:
            os.unlink(tmp)
        _save(logdir, None, worker, use_gzip, gzip.compress(data, _GZIP_LEVEL, mtime=0) if use_gzip else data)

    return handle
