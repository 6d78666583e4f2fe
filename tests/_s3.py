"""A real S3-compatible server on 127.0.0.1 for the storage tests, counting what it is asked.

moto's S3 server (its WSGI app, the one ``moto_server`` runs) is served over real HTTP by
werkzeug on a free loopback port, behind a thin middleware that records each request's
method, path, query and ``Range`` header, so tests can count the LISTs, HEADs and GETs a
read or a reload costs. ``s3fs`` (through fsspec) reaches it by ``AWS_ENDPOINT_URL``;
the fixture sets the credentials and endpoint for the test and stops the server after it.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest


@dataclass(frozen=True)
class S3Request:
    """One request the server received."""

    method: str
    path: str
    query: str
    range: str | None
    size: int  # the request body's bytes (Content-Length)

    @property
    def kind(self) -> str:
        """LIST, HEAD, GET, RANGED_GET, PUT, POST or DELETE, as S3 bills them."""
        if self.method == "GET":
            if "list-type" in self.query or (self.path.count("/") <= 1 and "uploads" not in self.query):
                return "LIST"
            return "RANGED_GET" if self.range else "GET"
        return self.method


class S3Server:
    """moto's S3 on ``127.0.0.1:<free port>``; ``requests`` grows as it answers."""

    def __init__(self) -> None:
        from moto.server import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server

        app = DomainDispatcherApplication(create_backend_app)
        self.requests: list[S3Request] = []
        self._lock = threading.Lock()

        def counting(environ: dict[str, Any], start_response: Any) -> Any:
            seen = S3Request(
                environ["REQUEST_METHOD"],
                environ.get("PATH_INFO", ""),
                environ.get("QUERY_STRING", ""),
                environ.get("HTTP_RANGE"),
                int(environ.get("CONTENT_LENGTH") or 0),
            )
            with self._lock:
                self.requests.append(seen)
            return app(environ, start_response)

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log in test output
        self._server = make_server("127.0.0.1", 0, counting, threaded=True)
        self.port = self._server.server_port
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def counts(self, since: int = 0) -> Counter[str]:
        """Requests by kind from index ``since`` of ``requests`` on."""
        with self._lock:
            return Counter(r.kind for r in self.requests[since:])

    def uploaded(self, since: int = 0) -> int:
        """Bytes sent in PUT and POST bodies from index ``since`` of ``requests`` on."""
        with self._lock:
            return sum(r.size for r in self.requests[since:] if r.method in ("PUT", "POST"))

    def mark(self) -> int:
        """The index of the next request: pass it to ``counts`` to count from now on."""
        with self._lock:
            return len(self.requests)

    def reset(self) -> None:
        """Empty every bucket: moto keeps its state per process, not per server."""
        import urllib.request

        reset = urllib.request.Request(f"{self.endpoint}/moto-api/reset", method="POST")
        urllib.request.urlopen(reset).close()
        self.clear()

    def clear(self) -> None:
        """Forget the requests counted so far."""
        with self._lock:
            self.requests.clear()

    def stop(self) -> None:
        """Stop serving and wait for the server's thread."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    """A fresh S3 server with one bucket, ``tbkit-test``, and s3fs pointed at it."""
    pytest.importorskip("s3fs", reason="the s3 extra (s3fs) is not installed")
    import s3fs

    server = S3Server()
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": server.endpoint,
    }.items():
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()
    try:
        server.reset()
        s3fs.S3FileSystem().mkdir("tbkit-test")
        server.clear()  # a test counts its own requests, not the bucket's creation
        yield server
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()
