"""Idle and slow clients against the real server on 127.0.0.1: others still get their answers."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.serve import ServerHandle, start

HALF_REQUEST = b"GET /data/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and never the blank line


@contextlib.contextmanager
def _server(**options: object) -> Iterator[ServerHandle]:
    provider = InMemoryProvider({"train": {"loss": {"points": [(0, 1.0, 0.5)]}}})
    handle = start(provider, host="127.0.0.1", port=0, **options)  # type: ignore[arg-type]
    try:
        yield handle
    finally:
        handle.close()


@contextlib.contextmanager
def _stalled(port: int, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections: odd ones send half a request, even ones nothing at all."""
    opened: list[socket.socket] = []
    try:
        for i in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            if i % 2:
                s.sendall(HALF_REQUEST)
            opened.append(s)
        yield opened
    finally:
        for s in opened:
            s.close()


def _runs(port: int) -> list[str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/data/runs")
        response = conn.getresponse()
        assert response.status == 200
        return [r["name"] for r in json.loads(response.read())]
    finally:
        conn.close()


def _closed_by_server(s: socket.socket) -> bool:
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


@pytest.mark.slow
def test_many_idle_and_half_open_connections_do_not_lock_others_out() -> None:
    # Before: waitress stopped accepting at 100 open connections; this request timed out.
    with _server() as handle, _stalled(handle.port, 150):
        assert _runs(handle.port) == ["train"]
        assert _runs(handle.port) == ["train"]


@pytest.mark.slow
def test_at_the_connection_limit_the_longest_waiting_connection_makes_room() -> None:
    with _server(connection_limit=20) as handle, _stalled(handle.port, 60) as stalled:
        assert _runs(handle.port) == ["train"]
        assert _closed_by_server(stalled[0])  # the first stalled one was evicted
        # A connection that is being answered is never evicted: a keep-alive one keeps working.
        conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=30)
        try:
            for _ in range(3):
                conn.request("GET", "/data/runs")
                assert conn.getresponse().read().startswith(b"[")
        finally:
            conn.close()


@pytest.mark.slow
def test_a_request_that_does_not_arrive_in_time_is_dropped() -> None:
    with _server(request_timeout=1.0) as handle, _stalled(handle.port, 2) as (idle, half):
        assert _closed_by_server(half)  # recv waits at most the 30 s socket timeout
        assert _runs(handle.port) == ["train"]
        idle.sendall(b"GET /data/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert idle.recv(12) == b"HTTP/1.1 200"  # an idle connection is not a late request
