"""Serving with waitress (a production WSGI server), with live reload and clean shutdown.

:func:`start` runs the app in a background thread and returns a :class:`ServerHandle`
(``.url``, ``.port``, ``.close()``); :func:`serve` is what ``tbkit serve`` runs: it
reads logdirs through a :class:`~tbkit.reader.multi.MultiLogdirProvider` reloaded in the
background (the server answers at once and lists runs as they are read), prints the URL
and serves until interrupted.

Example:
    >>> from tbkit.provider import InMemoryProvider
    >>> handle = start(InMemoryProvider({}), port=0)  # doctest: +SKIP
    >>> handle.url, handle.close()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import errno
import re
import signal
import socket
import sys
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from waitress import wasyncore
from waitress.server import create_server

from tbkit._memory import settle_heap
from tbkit.errors import InvalidArgumentError, TbkitError
from tbkit.provider import DataProvider
from tbkit.record import storage
from tbkit.server.app import create_app
from tbkit.server.reload import Reloader, ReloadState

__all__ = [
    "DEFAULT_PORT",
    "ServerHandle",
    "empty_logdir_warnings",
    "logdir_warnings",
    "parse_logdirs",
    "parse_samples_per_plugin",
    "serve",
    "start",
]

DEFAULT_PORT = 6006
PORT_ATTEMPTS = 100
THREADS = 6
# Responses up to this size stay in memory; waitress spools larger ones to a temporary file
# (its default is 1 MiB, less than one chart answer of 20 runs x 1,000 points).
OUTBUF_OVERFLOW = 8 << 20


def parse_samples_per_plugin(spec: str | None) -> dict[str, int | None]:
    """``"scalars=1000,images=all"`` as ``{"scalars": 1000, "images": None}`` (None keeps all).

    Example:
        >>> parse_samples_per_plugin("scalars=500, images=all")
        {'scalars': 500, 'images': None}
    """
    out: dict[str, int | None] = {}
    for item in (spec or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise InvalidArgumentError(f"--samples_per_plugin: expected plugin=N or plugin=all, got {item!r}")
        if value == "all":
            out[name] = None
            continue
        try:
            number = int(value)
        except ValueError:
            raise InvalidArgumentError(f"--samples_per_plugin: {name}={value!r} is not a number") from None
        if number < 1:
            raise InvalidArgumentError(f"--samples_per_plugin: {name} must be at least 1, got {number}")
        out[name] = number
    return out


_NAMED = re.compile(r"^([^/\\:]+):(?!//)(.+)$")


def parse_logdirs(logdir: str | None = None, logdir_spec: str | None = None) -> list[tuple[str, str]]:
    """``(name, path)`` pairs from ``--logdir`` (one path, or a comma list) and ``--logdir_spec``.

    ``--logdir_spec`` is ``name:path,name2:path2`` (a bare path is named after its last
    directory); one plain ``--logdir`` path gets the name ``""`` (runs are not prefixed).
    URLs (``s3://...``) are paths, not names.

    Example:
        >>> parse_logdirs(logdir_spec="a:/tmp/x,b:/tmp/y")
        [('a', '/tmp/x'), ('b', '/tmp/y')]
    """
    if bool(logdir) == bool(logdir_spec):
        raise InvalidArgumentError("give exactly one of --logdir and --logdir_spec")
    items = [item.strip() for item in (logdir or logdir_spec or "").split(",") if item.strip()]
    if not items:
        raise InvalidArgumentError("no log directory given")
    if logdir and len(items) == 1:
        return [("", items[0])]
    out: list[tuple[str, str]] = []
    for item in items:
        match = _NAMED.match(item)
        name, path = (
            (match.group(1), match.group(2)) if match else (item.rstrip("/").split("/")[-1] or item, item)
        )
        if name in {n for n, _ in out}:
            raise InvalidArgumentError(f"two log directories are named {name!r}; name them with name:path")
        out.append((name, path))
    return out


def _named(name: str, path: str) -> str:
    return f"{name}:{path}" if name else path


def logdir_warnings(logdirs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(path, warning)`` for each local logdir that does not exist or is a file.

    A URL (``s3://...``) is not checked: object stores have no directories to miss.
    ``tbkit serve`` prints each warning as one line and serves anyway, as TensorBoard does.

    Example:
        >>> logdir_warnings([("", "/no/such/dir")])[0][1]
        'logdir /no/such/dir does not exist; serving anyway (runs appear once it is created)'
    """
    out = []
    for name, path in logdirs:
        if not storage.is_local(path):
            continue
        local = Path(path[len("file://") :] if path.startswith("file://") else path)
        if local.is_file():
            out.append((path, f"logdir {_named(name, path)} is a file, not a directory; serving anyway"))
        elif not local.exists():
            why = "does not exist; serving anyway (runs appear once it is created)"
            out.append((path, f"logdir {_named(name, path)} {why}"))
    return out


def empty_logdir_warnings(empty: Sequence[tuple[str, str]], skip: Collection[str] = ()) -> list[str]:
    """One warning per logdir in ``empty`` (the ``(name, path)`` pairs without runs), but ``skip``'s paths.

    Example:
        >>> empty_logdir_warnings([("", "/tmp/x")])
        ['no event files found in logdir /tmp/x; serving anyway (runs appear as they are written)']
    """
    why = "serving anyway (runs appear as they are written)"
    return [f"no event files found in logdir {_named(n, p)}; {why}" for n, p in empty if p not in skip]


def _bind(host: str, port: int, search: bool) -> socket.socket:
    last: OSError | None = None
    for candidate in range(port, port + (PORT_ATTEMPTS if search and port else 1)):
        infos = socket.getaddrinfo(host, candidate, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(1024)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
            if exc.errno != errno.EADDRINUSE:
                break
    if last is not None and last.errno == errno.EADDRINUSE:
        tried = f"ports {port}-{port + PORT_ATTEMPTS - 1} are" if search and port else f"port {port} is"
        raise TbkitError(f"{tried} in use (choose another with --port, or --port 0 for any free port)")
    raise TbkitError(f"cannot listen on {host}:{port}: {last}")


@dataclass
class ServerHandle:
    """A running server: its URL and port, and :meth:`close` to stop it (and its reloader)."""

    url: str
    host: str
    port: int
    app: Any
    reloader: Reloader | None = None
    _thread: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _server: Any = None

    def close(self) -> None:
        """Stop serving, close every connection and the reload thread; returns when done.

        Calling it again, or after the server stopped by itself, does nothing more.
        """
        self._stop.set()
        if self._server is not None and self._thread is not None and self._thread.is_alive():
            # Wake the loop at once; when it has just ended it has closed the trigger itself,
            # and the 1-second poll timeout ends it anyway.
            with contextlib.suppress(OSError):
                self._server.pull_trigger()
        if self._thread is not None:
            self._thread.join()
        if self.reloader is not None:
            self.reloader.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the server stops (or ``timeout`` passes); True when it stopped."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _display_host(host: str) -> str:
    if host in ("127.0.0.1", "::1", "localhost"):
        return "localhost"
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def start(
    provider: DataProvider,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    search_port: bool = False,
    reload_interval: float | None = None,
    window_title: str = "",
    path_prefix: str = "",
    samples_per_plugin: Mapping[str, int | None] | None = None,
    threads: int = THREADS,
    on_first_load: Callable[[], None] | None = None,
) -> ServerHandle:
    """Serve ``provider`` in a background thread; returns once the socket listens.

    Args:
        provider: The data to serve.
        host: Address to bind (``localhost`` means 127.0.0.1).
        port: Port to bind; 0 lets the OS pick a free one.
        search_port: When ``port`` is taken, try the next ports (up to 100).
        reload_interval: Reload the provider in a background thread every so many
            seconds, starting at once (0: once); None: never (the provider is static).
        window_title: The browser window's title.
        path_prefix: Serve under this path.
        samples_per_plugin: Default points per series, by plugin (None: all).
        threads: Request worker threads.
        on_first_load: Called in the reload thread once the first reload succeeded.
    """
    host = "127.0.0.1" if host == "localhost" else host
    settle_heap()  # before the request and reload threads start
    state = ReloadState(reload_interval or 0.0, loading=reload_interval is not None)
    app = create_app(
        provider,
        window_title=window_title,
        path_prefix=path_prefix,
        samples_per_plugin=samples_per_plugin,
        reload_state=state,
    )
    sock = _bind(host, port, search_port)
    socket_map: dict[int, Any] = {}
    try:
        server = create_server(
            app,
            map=socket_map,
            sockets=[sock],
            threads=threads,
            ident="tbkit",
            outbuf_overflow=OUTBUF_OVERFLOW,
        )
    except Exception:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    prefix = app.extensions["tbkit"].path_prefix
    handle = ServerHandle(f"http://{_display_host(host)}:{bound}{prefix}/", host, bound, app, _server=server)
    if reload_interval is not None:
        handle.reloader = Reloader(provider, state, on_first_load).start()

    def loop() -> None:
        try:
            while not handle._stop.is_set():
                wasyncore.loop(timeout=1.0, map=socket_map, use_poll=True, count=1)
        finally:
            for channel in list(socket_map.values()):
                channel.close()
            server.task_dispatcher.shutdown()

    handle._thread = threading.Thread(target=loop, name="tbkit-server", daemon=True)
    handle._thread.start()
    return handle


def serve(
    logdirs: Sequence[tuple[str, str]],
    *,
    host: str = "localhost",
    port: int | None = None,
    reload_interval: float = 5.0,
    purge_orphaned_data: bool = True,
    window_title: str = "",
    path_prefix: str = "",
    samples_per_plugin: Mapping[str, int | None] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    ready: Callable[[ServerHandle], None] | None = None,
) -> int:
    """Serve ``logdirs`` (``(name, path)`` pairs) until interrupted (Ctrl+C, SIGTERM); returns 0.

    ``port=None`` means 6006, or the next free port when it is taken. ``ready`` is
    called with the handle once the server listens (tests use it to stop it). A logdir
    that does not exist or is a file, and one where the first load found no event
    files, get one ``tbkit: warning:`` line each on ``err`` (default stderr); serving
    goes on.
    """
    from tbkit.reader.multi import MultiLogdirProvider

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    provider = MultiLogdirProvider(logdirs, purge_orphaned_data=purge_orphaned_data)
    warned = logdir_warnings(logdirs)
    for _, message in warned:
        print(f"tbkit: warning: {message}", file=err, flush=True)

    def first_load() -> None:
        for message in empty_logdir_warnings(provider.empty_logdirs(), {path for path, _ in warned}):
            print(f"tbkit: warning: {message}", file=err, flush=True)

    handle = start(
        provider,
        host=host,
        port=DEFAULT_PORT if port is None else port,
        search_port=port is None,
        reload_interval=reload_interval,
        window_title=window_title,
        path_prefix=path_prefix,
        samples_per_plugin=samples_per_plugin,
        on_first_load=first_load,
    )
    print(
        f"tbkit serving {provider.data_location()} at {handle.url} (press Ctrl+C to quit)",
        file=out,
        flush=True,
    )
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, lambda *_: handle._stop.set())
    try:
        if ready is not None:
            ready(handle)
        while not handle.wait(0.5):
            if handle._stop.is_set():
                break
    except KeyboardInterrupt:
        pass
    finally:
        handle.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
