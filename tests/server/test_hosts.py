"""The Host-header check that keeps DNS-rebinding pages out."""

from __future__ import annotations

import socket

import pytest

from tbkit.server.hosts import HostCheck, host_name


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost:6006", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]:6006", "::1"),
        ("::1", "::1"),
        ("Evil.Example.COM.:80", "evil.example.com"),
        ("  box  ", "box"),
    ],
)
def test_host_name(header: str, name: str) -> None:
    assert host_name(header) == name


def test_own_names_and_literals_are_answered() -> None:
    check = HostCheck("localhost")
    for header in (
        "localhost:6006",
        "LOCALHOST",
        "app.localhost:6006",
        "127.0.0.1:6006",
        "[::1]:6006",
        "10.1.2.3",
        socket.gethostname(),
        None,
    ):
        assert check.allows(header), header


def test_other_names_are_refused() -> None:
    check = HostCheck("localhost")
    for header in ("evil.example.com", "evil.example.com:6006", "localhost.evil.com", "127.0.0.1.nip.io", ""):
        assert not check.allows(header), header


def test_bind_host_and_allowed_hosts_add_names() -> None:
    assert HostCheck("tb.internal").allows("tb.internal:6006")
    check = HostCheck("localhost", ["hub.example.org", " "])
    assert check.allows("HUB.example.org") and not check.allows("other.example.org")
    assert HostCheck("localhost", ["*"]).allows("anything.example")


def _get(port: int, host: str) -> tuple[int, dict[str, str], bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/data/runs", headers={"Host": host})
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        conn.close()


def test_the_server_refuses_other_host_names() -> None:
    from tbkit.provider import InMemoryProvider
    from tbkit.server.serve import start

    with start(InMemoryProvider({}), port=0) as handle:
        assert _get(handle.port, f"localhost:{handle.port}")[0] == 200
        assert _get(handle.port, f"127.0.0.1:{handle.port}")[0] == 200
        status, headers, body = _get(handle.port, "rebind.evil.example")
        assert status == 403 and b"--allowed_hosts" in body
        assert headers["X-Frame-Options"] == "DENY" and "Content-Security-Policy" in headers
    with start(InMemoryProvider({}), port=0, allowed_hosts=["tb.example.org"]) as handle:
        assert _get(handle.port, "tb.example.org")[0] == 200
        assert _get(handle.port, "other.example.org")[0] == 403


def test_frame_ancestors_let_a_notebook_embed_the_app() -> None:
    from tbkit.provider import InMemoryProvider
    from tbkit.server.app import create_app

    plain = create_app(InMemoryProvider({})).test_client().get("/data/runs")
    assert plain.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in plain.headers["Content-Security-Policy"]
    app = create_app(InMemoryProvider({}), frame_ancestors=["http://localhost:8888"])
    embedded = app.test_client().get("/data/runs")
    assert "X-Frame-Options" not in embedded.headers
    assert "frame-ancestors 'self' http://localhost:8888" in embedded.headers["Content-Security-Policy"]
