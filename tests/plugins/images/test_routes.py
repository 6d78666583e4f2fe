"""Image routes: samples per step, blob keys, content types, refused keys."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app


def test_tags_count_samples(client: Any) -> None:
    tags = client.get("/data/plugin/images/tags").json
    assert tags["train"]["pictures"]["samples"] == 2
    assert tags["train"]["pictures"]["max_step"] == 4


@pytest.mark.parametrize("sample", [0, 1])
def test_images_and_their_bytes(client: Any, sample: int) -> None:
    answer = client.get(f"/data/plugin/images/images?run=train&tag=pictures&sample={sample}").json
    assert [a["step"] for a in answer] == [0, 1, 2, 3, 4]
    keys = set()
    for entry in answer:
        assert (entry["width"], entry["height"], entry["format"]) == (6, 8, "png")
        response = client.get(
            "/data/plugin/images/individualImage", query_string={"blob_key": entry["blob_key"]}
        )
        assert response.status_code == 200 and response.mimetype == "image/png"
        assert Image.open(io.BytesIO(response.data)).size == (6, 8)
        keys.add(entry["blob_key"])
    assert len(keys) == 5


def test_samples_differ(client: Any) -> None:
    first = client.get("/data/plugin/images/images?run=train&tag=pictures&sample=0").json[0]["blob_key"]
    second = client.get("/data/plugin/images/images?run=train&tag=pictures&sample=1").json[0]["blob_key"]
    a = client.get("/data/plugin/images/individualImage", query_string={"blob_key": first}).data
    b = client.get("/data/plugin/images/individualImage", query_string={"blob_key": second}).data
    assert a != b


def test_sample_past_the_end_gives_no_steps(client: Any) -> None:
    assert client.get("/data/plugin/images/images?run=train&tag=pictures&sample=5").json == []


def _key(run: str, tag: str, point: int, index: int) -> str:
    raw = json.dumps([run, tag, point, index]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "key",
    [
        "../../etc/passwd",
        "%2e%2e%2fetc%2fpasswd",
        "/etc/passwd",
        "",
        "not-base64!!",
        _key("train", "pictures", 0, 0),  # the width, not an image
        _key("train", "sound", 0, 0),  # an audio clip
        _key("train", "pictures", 99, 2),
        _key("nope", "pictures", 0, 2),
        base64.urlsafe_b64encode(b'["train", "pictures", "0", 2]').decode(),
    ],
)
def test_refused_blob_keys(client: Any, key: str) -> None:
    response = client.get("/data/plugin/images/individualImage", query_string={"blob_key": key})
    assert response.status_code in (400, 404)
    assert "error" in response.json


def test_never_served_as_html() -> None:
    page = b"<html><script>alert(1)</script></html>"
    provider = InMemoryProvider({"r": {"i": {"plugin": "images", "points": [(0, 1.0, [b"1", b"1", page])]}}})
    client = create_app(provider).test_client()
    entry = client.get("/data/plugin/images/images?run=r&tag=i").json[0]
    assert entry["format"] == ""
    response = client.get("/data/plugin/images/individualImage", query_string={"blob_key": entry["blob_key"]})
    assert response.status_code == 404 and response.mimetype == "application/json"


def test_samples_per_plugin_limits_steps(tbkit_logdir: Any) -> None:
    import tbkit

    for limit, expected in [(2, [3, 4]), (None, [0, 1, 2, 3, 4])]:
        app = create_app(tbkit.read(str(tbkit_logdir)).provider, samples_per_plugin={"images": limit})
        answer = app.test_client().get("/data/plugin/images/images?run=train&tag=pictures").json
        assert [a["step"] for a in answer] == expected


@pytest.mark.parametrize(
    ("query", "status"), [("run=train&tag=pictures&sample=-1", 400), ("run=x&tag=pictures", 404)]
)
def test_errors(client: Any, query: str, status: int) -> None:
    assert client.get(f"/data/plugin/images/images?{query}").status_code == status


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


class _CountingProvider(InMemoryProvider):
    """Counts blob reads and series builds (each ``read_blob`` of a series provider builds its series)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.blob_reads = 0
        self.series_builds = 0

    def series(self, *args: Any, **kwargs: Any) -> Any:
        self.series_builds += 1
        return super().series(*args, **kwargs)

    def read_blob(self, blob_key: str) -> bytes:
        self.blob_reads += 1
        return super().read_blob(blob_key)


def test_one_blob_read_per_image() -> None:
    """An image's entry reads its image only (format and size from its header): not also width and height."""
    points = [(step, 1.0 + step, [b"6", b"8", _png(6, 8), _png(6, 8)]) for step in range(4)]
    provider = _CountingProvider({"r": {"i": {"plugin": "images", "points": points}}})
    client = create_app(provider).test_client()
    provider.blob_reads = provider.series_builds = 0
    answer = client.get("/data/plugin/images/images?run=r&tag=i&sample=1").json
    assert [(a["width"], a["height"], a["format"]) for a in answer] == [(6, 8, "png")] * 4
    assert provider.blob_reads == len(answer)
    assert provider.series_builds <= 1 + len(answer)  # the sequences' read, then one per blob read


def test_size_from_the_width_and_height_blobs_when_the_header_gives_none() -> None:
    points = [(0, 1.0, [b"6", b"x", b"GIF89a-not-really"]), (1, 2.0, [b"3", b"4", b"\x00\x01"])]
    provider = _CountingProvider({"r": {"i": {"plugin": "images", "points": points}}})
    answer = create_app(provider).test_client().get("/data/plugin/images/images?run=r&tag=i").json
    assert [(a["width"], a["height"], a["format"]) for a in answer] == [(6, None, "gif"), (3, 4, "")]
