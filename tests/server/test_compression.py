"""Compressed answers and static files' validators (issue 16): gzip when asked, 304 when unchanged."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.app import SECURITY_HEADERS, create_app
from tbkit.server.compress import MIN_SIZE, CompressedFiles, chosen_encoding, compress_response

GZIP = {"Accept-Encoding": "gzip, deflate"}
SCALARS = "/data/plugin/scalars/scalars?tag=loss&runs=train"


@pytest.fixture
def app_client() -> Any:
    points = [(step, 1000.0 + step, 1.0 / (step + 1)) for step in range(500)]
    provider = InMemoryProvider({"train": {"loss": {"points": points}}, "eval": {"loss": {"points": points}}})
    return create_app(provider).test_client()


def _plotly_url(client: Any) -> str:
    url = client.get("/data/environment").json["plotly_url"]
    assert url, "plotly is installed with the test extras"
    return str(url)


def _has_security_headers(response: Any) -> bool:
    names = {name for name, _ in SECURITY_HEADERS}
    return all(name in response.headers for name in names)


def test_plotly_is_gzipped_when_asked_and_identical_after_decompression(app_client: Any) -> None:
    url = _plotly_url(app_client)
    plain = app_client.get(url)
    zipped = app_client.get(url, headers=GZIP)
    assert plain.status_code == zipped.status_code == 200
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in plain.headers
    assert gzip.decompress(zipped.data) == plain.data
    assert len(zipped.data) < len(plain.data) / 2
    for response in (plain, zipped):
        assert "Accept-Encoding" in response.headers["Vary"]
        assert _has_security_headers(response)
        assert "immutable" in response.headers["Cache-Control"]
        assert response.headers["ETag"] and response.headers["Last-Modified"]
    # The two representations have their own validators.
    assert plain.headers["ETag"] != zipped.headers["ETag"]


def test_plotly_is_compressed_once(app_client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import tbkit.server.compress as compress_module

    calls: list[int] = []
    real = compress_module.compress

    def counting(data: bytes, encoding: str, level: int = 3) -> bytes:
        calls.append(len(data))
        return real(data, encoding, level)

    monkeypatch.setattr(compress_module, "compress", counting)
    url = _plotly_url(app_client)
    bodies = {app_client.get(url, headers=GZIP).data for _ in range(3)}
    assert len(bodies) == 1
    assert len(calls) == 1


def test_json_answers_are_gzipped_when_asked(app_client: Any) -> None:
    plain = app_client.get(SCALARS)
    zipped = app_client.get(SCALARS, headers=GZIP)
    assert len(plain.data) >= MIN_SIZE
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert zipped.mimetype == "application/json"
    assert gzip.decompress(zipped.data) == plain.data
    assert "Content-Encoding" not in plain.headers
    for response in (plain, zipped):
        assert "Accept-Encoding" in response.headers["Vary"]
        assert response.headers["Cache-Control"] == "no-cache"
        assert _has_security_headers(response)


def test_small_answers_are_not_compressed(app_client: Any) -> None:
    response = app_client.get("/data/runs", headers=GZIP)
    assert len(response.data) < MIN_SIZE
    assert "Content-Encoding" not in response.headers
    assert _has_security_headers(response)


def test_refused_encoding_is_not_used(app_client: Any) -> None:
    response = app_client.get(SCALARS, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in response.headers
    assert response.json["train"]["step"][:3] == [0, 1, 2]


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_static_files_answer_304_to_their_validators(app_client: Any, encoding: str | None) -> None:
    headers = {"Accept-Encoding": encoding} if encoding else {}
    base = app_client.get("/data/environment").json["static_url"]
    for url in (f"{base}/app.js", "/static/app.js", _plotly_url(app_client)):
        first = app_client.get(url, headers=headers)
        assert first.status_code == 200
        by_etag = app_client.get(url, headers={**headers, "If-None-Match": first.headers["ETag"]})
        since = first.headers["Last-Modified"]
        by_date = app_client.get(url, headers={**headers, "If-Modified-Since": since})
        for again in (by_etag, by_date):
            assert again.status_code == 304
            assert again.data == b""
            assert again.headers["ETag"] == first.headers["ETag"]
            assert _has_security_headers(again)
        stale = app_client.get(url, headers={**headers, "If-None-Match": '"not-this-one"'})
        assert stale.status_code == 200 and stale.data == first.data


def test_gzip_validator_does_not_match_the_plain_bytes(app_client: Any) -> None:
    url = _plotly_url(app_client)
    zipped_tag = app_client.get(url, headers=GZIP).headers["ETag"]
    plain = app_client.get(url, headers={"If-None-Match": zipped_tag})
    assert plain.status_code == 200
    assert "Content-Encoding" not in plain.headers


def test_unversioned_static_files_are_revalidated(app_client: Any) -> None:
    response = app_client.get("/static/app.js", headers=GZIP)
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Content-Encoding"] == "gzip"


def test_a_changed_static_file_is_compressed_again(tmp_path: Path) -> None:
    import os

    path = tmp_path / "a.js"
    path.write_text("let a = 1;\n" * 400)
    files = CompressedFiles()
    first = files.get(path, "gzip")
    path.write_text("let b = 2;\n" * 400)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    second = files.get(path, "gzip")
    assert gzip.decompress(first) == b"let a = 1;\n" * 400
    assert gzip.decompress(second) == b"let b = 2;\n" * 400


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("gzip", "gzip"),
        ("GZIP", "gzip"),
        ("deflate", None),
        ("identity", None),
        ("*", "gzip"),
        ("*;q=0", None),
        ("gzip;q=0", None),
        ("gzip;q=0.5, deflate", "gzip"),
        ("gzip;q=bogus", None),
    ],
)
def test_chosen_encoding(header: str | None, expected: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    import tbkit.server.compress as compress_module

    monkeypatch.setattr(compress_module, "ENCODINGS", ("gzip",))
    assert chosen_encoding(header) == expected


def test_already_encoded_and_streamed_answers_are_left_alone() -> None:
    from flask import Response

    encoded = Response(b"x" * 4096, mimetype="application/json", headers={"Content-Encoding": "br"})
    assert compress_response(encoded, "gzip").get_data() == b"x" * 4096
    streamed = Response(iter([b"x" * 4096]), mimetype="application/json")
    assert "Content-Encoding" not in compress_response(streamed, "gzip").headers
    image = Response(b"\x89PNG" + b"\x00" * 4096, mimetype="image/png")
    assert "Content-Encoding" not in compress_response(image, "gzip").headers
