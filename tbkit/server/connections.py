"""Waitress, guarded against idle and slow clients: they must never keep others from an answer.

Waitress already reads requests asynchronously (a worker thread only ever gets a request that
has fully arrived), but by default it stops *accepting* connections once 100 are open, so 100
idle or half-sent connections lock every other client out (TensorBoard's thread-per-connection
server keeps answering). :class:`GuardedServer` changes three things:

* **A higher limit**: up to :func:`default_connection_limit` connections (from the process's
  open-file limit).
* **Eviction instead of refusal**: at the limit, a new connection closes the connection that
  has waited longest on its client without a request in progress (a stalled half request, or
  an idle keep-alive one); only when every connection is being served is the new one refused.
* **A request deadline**: a request must arrive whole (headers and body) within
  ``request_timeout`` seconds of its first byte, or its connection is closed (slowloris);
  a connection idle between requests closes after ``idle_timeout`` seconds.

And the errors waitress answers itself, before the app sees a request (400 for a malformed
request, 431 for oversized headers, 413 for an oversized chunked body), carry the app's
security headers and a JSON body like the app's own errors.

Example:
    >>> server = GuardedServer.create(app, sock, socket_map, threads=6)  # doctest: +SKIP
"""

from __future__ import annotations

import json
import resource
import socket
import time
from collections.abc import Iterable
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher

__all__ = [
    "CLEANUP_INTERVAL",
    "IDLE_TIMEOUT",
    "REQUEST_TIMEOUT",
    "GuardedChannel",
    "GuardedErrorTask",
    "GuardedServer",
    "default_connection_limit",
]

REQUEST_TIMEOUT = 30.0  # seconds from a request's first byte to its last
IDLE_TIMEOUT = 120  # seconds a keep-alive connection may sit between requests
CLEANUP_INTERVAL = 2  # seconds between the checks of both deadlines
_RESERVED_FILES = 256  # open files kept for event files, static files, spooled answers
_MAX_CONNECTIONS = 4096


def default_connection_limit() -> int:
    """How many client connections to keep open: the open-file limit less a reserve, at most 4,096."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return _MAX_CONNECTIONS
    return max(16, min(_MAX_CONNECTIONS, soft - _RESERVED_FILES))


class GuardedErrorTask(ErrorTask):  # type: ignore[misc]
    """Waitress' own error answer, as JSON and with the server's extra (security) headers."""

    def execute(self) -> None:
        """Write the error response and close the connection after it."""
        error = self.request.error
        body = json.dumps({"error": f"{error.reason}: {error.body}"}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.response_headers.extend(getattr(self.channel.server, "error_headers", ()))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A waitress channel that remembers when the request it is receiving began."""

    error_task_class = GuardedErrorTask
    request_started: float | None = None

    def received(self, data: bytes) -> bool:
        """Parse ``data``; note the time a partial request began (None once none is partial)."""
        result = bool(super().received(data))
        if self.request is None:
            self.request_started = None
        elif self.request_started is None:
            self.request_started = time.time()
        return result

    def waiting_since(self) -> float:
        """Since when this connection has been waiting on its client."""
        return self.request_started if self.request_started is not None else float(self.last_activity)

    def evictable(self) -> bool:
        """Whether closing it now loses nothing: no request served or queued, nothing left to send."""
        return not (self.requests or self.total_outbufs_len or self.will_close or self.close_when_flushed)


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """A waitress TCP server that evicts stalled connections and enforces the request deadline."""

    channel_class = GuardedChannel
    request_timeout: float = REQUEST_TIMEOUT
    error_headers: tuple[tuple[str, str], ...] = ()  # added to waitress' own error answers
    refused = 0  # connections refused because every open one was being served
    evicted = 0  # connections closed to make room

    @classmethod
    def create(
        cls,
        app: Any,
        sock: socket.socket,
        socket_map: dict[int, Any],
        *,
        threads: int,
        connection_limit: int | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        idle_timeout: int = IDLE_TIMEOUT,
        error_headers: Iterable[tuple[str, str]] = (),
        **adjustments: Any,
    ) -> GuardedServer:
        """A server over the listening ``sock`` in ``socket_map``; run it with ``wasyncore.loop``.

        Args:
            app: The WSGI application.
            sock: A bound, listening TCP socket.
            socket_map: The asyncore map the loop polls.
            threads: Request worker threads.
            connection_limit: Open client connections at most (default: from the open-file limit).
            request_timeout: Seconds a request may take to arrive whole.
            idle_timeout: Seconds a connection may stay idle between requests.
            error_headers: Headers added to the errors waitress answers itself (431 ...).
            adjustments: Further waitress adjustments (``ident``, ``outbuf_overflow`` ...).
        """
        limit = connection_limit if connection_limit is not None else default_connection_limit()
        adj = Adjustments(
            sockets=[sock],
            threads=threads,
            connection_limit=limit,
            channel_timeout=idle_timeout,
            cleanup_interval=min(CLEANUP_INTERVAL, max(1, int(request_timeout))),
            **adjustments,
        )
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(threads)
        server = cls(
            app,
            socket_map,
            True,
            sock,
            dispatcher=dispatcher,
            adj=adj,
            bind_socket=False,
            sockinfo=(sock.family, sock.type, sock.proto, sock.getsockname()),
        )
        server.request_timeout = request_timeout
        server.error_headers = tuple(error_headers)
        return server

    def readable(self) -> bool:
        """Run the deadline checks when due; always accept (the limit is kept in :meth:`handle_accept`)."""
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        return bool(self.accepting)

    def handle_accept(self) -> None:
        """Accept a connection; over the limit, make room by evicting, or refuse the newcomer."""
        before = set(self.active_channels)
        super().handle_accept()
        if len(self.active_channels) <= self.adj.connection_limit:
            return
        new = [self.active_channels[fd] for fd in set(self.active_channels) - before]
        waiting = [c for c in self.active_channels.values() if c.evictable() and c not in new]
        if waiting:
            self.evicted += 1
            min(waiting, key=GuardedChannel.waiting_since).handle_close()
        else:
            self.refused += 1
            for channel in new:
                channel.handle_close()

    def maintenance(self, now: float) -> None:
        """Close idle connections (waitress's own check) and those whose request is overdue."""
        super().maintenance(now)
        cutoff = now - self.request_timeout
        for channel in list(self.active_channels.values()):
            started = getattr(channel, "request_started", None)
            if not channel.requests and started is not None and started < cutoff:
                channel.will_close = True
