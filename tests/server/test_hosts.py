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
