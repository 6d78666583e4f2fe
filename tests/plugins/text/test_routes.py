"""Text routes: Markdown rendered, then sanitized; tables for arrays."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tbkit.plugins._markdown import markdown_to_safe_html
from tbkit.plugins.text.render import text_to_html
from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app

DANGEROUS = re.compile(r"<script|\son\w+\s*=|javascript:|<iframe|<object|<embed|<style", re.IGNORECASE)


def test_tags(client: Any) -> None:
    tags = client.get("/data/plugin/text/tags").json
    assert set(tags["train"]) == {"notes/text_summary", "table/text_summary"}  # torch's tags


def test_markdown_is_rendered_and_sanitized(client: Any) -> None:
    answer = client.get("/data/plugin/text/text?run=train&tag=notes/text_summary").json
    assert [a["step"] for a in answer] == [0, 1, 2, 3, 4]
    for entry in answer:
        assert entry["shape"] == [1]  # torch's one-element vector, as tbkit writes a string
        html = entry["html"]
        assert "<strong>bold</strong>" in html
        assert not DANGEROUS.search(html), html
        assert 'href="https://example.com"' in html


def test_table_cells_are_sanitized(client: Any) -> None:
    entry = client.get("/data/plugin/text/text?run=train&tag=table/text_summary").json[0]
    assert entry["shape"] == [2, 2]
    assert entry["html"].count("<tr>") == 2 and entry["html"].count("<td>") == 4
    assert "<strong>a</strong>" in entry["html"]
    assert not DANGEROUS.search(entry["html"])


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "<a href='JaVaScRiPt:alert(1)'>x</a>",
        "<svg onload=alert(1)>",
        "<iframe src='https://evil.example'></iframe>",
        "<style>body{display:none}</style>",
        "<div style='background:url(javascript:alert(1))'>x</div>",
        '<a href="&#106;avascript:alert(1)">x</a>',
        "<math><mi xlink:href='javascript:alert(1)'>x</mi></math>",
    ],
)
def test_payloads_are_neutralised(payload: str) -> None:
    assert not DANGEROUS.search(markdown_to_safe_html(payload))
    assert not DANGEROUS.search(text_to_html(np.array([[payload]], dtype=object)))


def test_rank_three_shows_the_first_slice() -> None:
    html = text_to_html(np.array([[["a", "b"]], [["c", "d"]]], dtype=object))
    assert "first 2-D slice" in html and "a" in html and "c" not in html.split("</p>", 1)[1]


def test_bytes_values_from_a_plain_provider() -> None:
    provider = InMemoryProvider(
        {"r": {"t": {"plugin": "text", "points": [(0, 1.0, np.array(b"*hi*", dtype=object))]}}}
    )
    answer = create_app(provider).test_client().get("/data/plugin/text/text?run=r&tag=t").json
    assert answer[0]["html"] == "<p><em>hi</em></p>"


@pytest.mark.parametrize(
    ("query", "status"),
    [("run=train", 400), ("run=train&tag=nope", 404), ("run=z&tag=notes/text_summary", 404)],
)
def test_errors(client: Any, query: str, status: int) -> None:
    assert client.get(f"/data/plugin/text/text?{query}").status_code == status
