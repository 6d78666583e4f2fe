"""Error answers over a real socket: 4xx not 500, the security headers on every status, one charset."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.app import SECURITY_HEADERS, create_app
from tbkit.server.serve import ServerHandle, start

SCALARS = "/data/plugin/scalars/scalars"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server() -> Iterator[ServerHandle]:
    provider = InMemoryProvider({"train": {"loss": {"points": [(0, 1.0, 0.5)]}}})
    handle = start(provider, host="127.0.0.1", port=0)
    try:
        yield handle
    finally:
        handle.close()


def _ask(server: ServerHandle, method: str, url: str, body: bytes | None = None, **headers: str) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # answered before the body was sent
            conn.request(method, url, body=body, headers=headers)
        response = conn.getresponse()
        response.body = response.read()
        return response
    finally:
        conn.close()


def _raw(server: ServerHandle, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("body", [b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000])
def test_deeply_nested_json_body_is_a_400(server: ServerHandle, body: bytes) -> None:
    # Before: 500, RecursionError from the standard library's JSON decoder.
    response = _ask(server, "POST", SCALARS, body, **JSON)
    assert response.status == 400
    assert "not valid JSON" in json.loads(response.body)["error"]


def test_json_body_still_read(server: ServerHandle) -> None:
    response = _ask(server, "POST", SCALARS, json.dumps({"tag": "loss"}).encode(), **JSON)
    assert response.status == 200 and json.loads(response.body)["train"]["value"] == [0.5]
    assert _ask(server, "POST", SCALARS, b"[1]", **JSON).status == 400  # not an object


def _check_headers(headers: Any) -> None:
    for name, value in SECURITY_HEADERS:
        assert headers[name] == value, name


def test_oversized_headers_get_431_with_the_security_headers(server: ServerHandle) -> None:
    # Before: waitress' own text/plain 431 carried none of them.
    response = _ask(server, "GET", "/data/runs", **{"X-Big": "a" * 300_000})
    assert response.status == 431
    _check_headers(response.headers)
    assert "Too Large" in json.loads(response.body)["error"]


def test_malformed_request_gets_400_with_the_security_headers(server: ServerHandle) -> None:
    status, headers, body = _raw(server, b"GET /data/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nBad header\r\n\r\n")
    assert status == 400
    _check_headers(headers)
    assert headers["Content-Type"] == "application/json" and "error" in json.loads(body)


@pytest.mark.parametrize(
    ("method", "url", "body", "status"),
    [
        ("GET", "/data/runs", None, 200),
        ("GET", "/data/plugin/scalars/scalars", None, 400),
        ("GET", "/no/such/page", None, 404),
        ("DELETE", "/data/runs", None, 405),
        ("POST", SCALARS, b"x" * (2 << 20), 413),
    ],
)
def test_every_status_carries_the_security_headers(
    server: ServerHandle, method: str, url: str, body: bytes | None, status: int
) -> None:
    response = _ask(server, method, url, body, **JSON)
    assert response.status == status
    _check_headers(response.headers)


def test_every_static_file_has_one_charset() -> None:
    # Before: "text/css; charset=utf-8; charset=utf-8" (werkzeug appended a second charset).
    app = create_app(InMemoryProvider({}))
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    static = client.get("/data/environment").json["static_url"]
    urls = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', page))
    urls |= {script for tab in client.get("/data/plugins_listing").json.values() if (script := tab["script"])}
    assert any(u.endswith(".css") for u in urls) and any(u.endswith(".js") for u in urls)
    assert all(u.startswith(static) for u in urls)
    for url in sorted(urls):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["Content-Type"].count("charset") <= 1, (url, response.headers["Content-Type"])


def test_a_body_over_the_limit_is_refused_before_it_is_sent(server: ServerHandle) -> None:
    # Before: waitress waited for all 64 MB (up to its 1 GB default) and the client, which had
    # sent only the first megabyte, never got an answer.
    head = (
        f"POST {SCALARS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {64 << 20}\r\n\r\n"
    ).encode()
    status, headers, body = _raw(server, head + b"[" * 1024)
    assert status == 413
    _check_headers(headers)
    assert "error" in json.loads(body)
