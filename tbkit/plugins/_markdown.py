"""Markdown to sanitized HTML, for text summaries and audio labels.

Rendering uses the ``markdown`` package (tables and fenced code as in TensorBoard);
the HTML is then cleaned by ``nh3`` (the Rust ``ammonia`` sanitizer) with an allow-list:
no scripts, styles, event-handler attributes, or URLs other than http(s), mailto and
in-page links. Sanitizing is security-critical, so it is left to a maintained library.

Example:
    >>> markdown_to_safe_html("**hi** <script>alert(1)</script>")
    '<p><strong>hi</strong> </p>'
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import markdown as _markdown
import nh3

__all__ = ["markdown_to_safe_html", "sanitize_html", "table_to_safe_html"]

_EXTENSIONS = ["tables", "fenced_code", "sane_lists"]
_URL_SCHEMES = {"http", "https", "mailto"}
_TAGS = set(nh3.ALLOWED_TAGS) - {"area", "map"}


def sanitize_html(text: str) -> str:
    """``text`` with everything but an allow-list of harmless tags and attributes removed."""
    return nh3.clean(text, tags=_TAGS, url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer")


def markdown_to_safe_html(text: str) -> str:
    """Render Markdown ``text`` to HTML and sanitize it."""
    return sanitize_html(_markdown.markdown(text, extensions=_EXTENSIONS, output_format="html"))


def _cell(text: str) -> str:
    rendered = markdown_to_safe_html(text).strip()
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        rendered = rendered[3:-4]
    return rendered


def table_to_safe_html(rows: Sequence[Sequence[str]], *, header: Sequence[str] | None = None) -> str:
    """An HTML table whose cells are Markdown rendered and sanitized (escaped when plain)."""
    parts = ["<table>"]
    if header is not None:
        parts.append("<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>")
    parts.append("</tbody></table>")
    return sanitize_html("".join(parts))
