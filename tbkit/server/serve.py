"""Serving with waitress (a production WSGI server), with live reload and clean shutdown.

:func:`start` runs the app in a background thread and returns a :class:`ServerHandle`
(``.url``, ``.port``, ``.close()``); :func:`serve` is what ``tbkit serve`` runs: it serves
a :class:`~tbkit.provider.DataProvider` reloaded in the background (the server answers at
once and lists runs as they are read), prints the URL and serves until interrupted. The
server is given its provider: building one from logdirs is the command line's part
(:mod:`tbkit.cli.serve`); the server never imports the reader.

Example:
    >>> from tbkit.provider import InMemoryProvider
    >>> handle = start(InMemoryProvider({}), port=0)  # doctest: +SKIP
    >>> handle.url, handle.close()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import errno
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from waitress import wasyncore

from tbkit._memory import settle_heap
from tbkit.errors import TbkitError
from tbkit.provider import DataProvider
from tbkit.server.app import MAX_CONTENT_LENGTH, create_app, security_headers
from tbkit.server.connections import REQUEST_TIMEOUT, GuardedServer
from tbkit.server.foreground import Foreground
from tbkit.server.hosts import HostCheck
from tbkit.server.reload import Reloader, ReloadState

__all__ = ["DEFAULT_PORT", "QUEUE_LOGGER", "ServerHandle", "quiet_server_logs", "serve", "start"]

DEFAULT_PORT = 6006
PORT_ATTEMPTS = 100
# A browser opens up to 6 connections to one host, and waitress serves one request per
# connection at a time: 8 workers answer a whole page load's parallel fetches without
# queueing, with room for a second client (a notebook's frame, a script).
THREADS = 8
# waitress warns "Task queue depth is N" here whenever a request waits for a worker: normal
# under load and nothing the user can act on, so hidden unless logging is configured for it.
QUEUE_LOGGER = "waitress.queue"
# Responses up to this size stay in memory; waitress spools larger ones to a temporary file
# (its default is 1 MiB, less than one chart answer of 20 runs x 1,000 points).
OUTBUF_OVERFLOW = 8 << 20


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
            self.reloader.provider.set_give_way(None)

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


def quiet_server_logs() -> None:
    """Hide waitress' queue-depth warnings, unless the ``waitress.queue`` logger's level was set.

    ``tbkit serve --debug`` sets that level (:func:`tbkit.cli.serve.configure_logging`), and
    so can any program serving with :func:`start`; then the warnings are shown.
    """
    logger = logging.getLogger(QUEUE_LOGGER)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.ERROR)


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
    connection_limit: int | None = None,
    request_timeout: float = REQUEST_TIMEOUT,
    allowed_hosts: Sequence[str] = (),
    frame_ancestors: Sequence[str] = (),
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
        connection_limit: Open client connections at most; at the limit the one waiting
            longest on its client is closed (default: from the open-file limit).
        request_timeout: Seconds a request may take to arrive whole before its connection
            is closed (slow clients never hold a worker thread: they get none until then).
        allowed_hosts: Host names to answer to besides this machine's, IP literals,
            ``localhost`` and ``host`` (``*``: every name); others get a 403, against DNS
            rebinding (:mod:`tbkit.server.hosts`).
        frame_ancestors: Origins whose pages may embed the UI in a frame (a notebook's).
    """
    host = "127.0.0.1" if host == "localhost" else host
    quiet_server_logs()
    settle_heap()  # before the request and reload threads start
    state = ReloadState(reload_interval or 0.0, loading=reload_interval is not None)
    app = create_app(
        provider,
        window_title=window_title,
        path_prefix=path_prefix,
        samples_per_plugin=samples_per_plugin,
        reload_state=state,
        allowed_hosts=HostCheck(host, allowed_hosts),
        frame_ancestors=frame_ancestors,
    )
    sock = _bind(host, port, search_port)
    socket_map: dict[int, Any] = {}
    try:
        server = GuardedServer.create(
            app,
            sock,
            socket_map,
            threads=threads,
            connection_limit=connection_limit,
            request_timeout=request_timeout,
            error_headers=security_headers(frame_ancestors),
            # A body over the app's limit is refused (413) as soon as its headers arrive,
            # not after waitress has waited for all of it.
            max_request_body_size=MAX_CONTENT_LENGTH,
            ident="tbkit",
            outbuf_overflow=OUTBUF_OVERFLOW,
        )
    except Exception:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    prefix = app.extensions["tbkit"].path_prefix
    handle = ServerHandle(f"http://{_display_host(host)}:{bound}{prefix}/", host, bound, app, _server=server)
    if reload_interval is not None:  # loading gives way to the requests in flight
        foreground = Foreground()
        app.wsgi_app = foreground.wrap(app.wsgi_app)  # type: ignore[method-assign]
        provider.set_give_way(foreground.give_way)
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
    provider: DataProvider,
    *,
    host: str = "localhost",
    port: int | None = None,
    reload_interval: float | None = 5.0,
    window_title: str = "",
    path_prefix: str = "",
    samples_per_plugin: Mapping[str, int | None] | None = None,
    out: TextIO | None = None,
    ready: Callable[[ServerHandle], None] | None = None,
    on_first_load: Callable[[], None] | None = None,
    allowed_hosts: Sequence[str] = (),
) -> int:
    """Serve ``provider`` until interrupted (Ctrl+C, SIGTERM); returns 0.

    ``port=None`` means 6006, or the next free port when it is taken. The provider is
    reloaded every ``reload_interval`` seconds in a background thread, starting at once
    (0: once; None: never). The URL is printed on ``out`` (default stdout). ``ready`` is
    called with the handle once the server listens (tests use it to stop it);
    ``on_first_load`` in the reload thread once the first reload succeeded (``tbkit
    serve`` warns there about logdirs without event files). ``allowed_hosts``: as
    :func:`start`'s.

    Example:
        >>> from tbkit.provider import InMemoryProvider
        >>> serve(InMemoryProvider({}), port=0, reload_interval=None)  # doctest: +SKIP
        tbkit serving memory at http://localhost:40123/ (press Ctrl+C to quit)
        0
    """
    out = out if out is not None else sys.stdout
    handle = start(
        provider,
        host=host,
        port=DEFAULT_PORT if port is None else port,
        search_port=port is None,
        reload_interval=reload_interval,
        window_title=window_title,
        path_prefix=path_prefix,
        samples_per_plugin=samples_per_plugin,
        on_first_load=on_first_load,
        allowed_hosts=allowed_hosts,
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
