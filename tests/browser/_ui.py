"""Helpers for driving tbkit's UI in the browser tests: waiting for charts, reading their state."""

from __future__ import annotations

import io
import json
import re
import time
import urllib.parse
import urllib.request
from typing import Any

import numpy as np
from PIL import Image

# Generous bounds for things the page does by itself; they only stop a hung test.
WAIT_MS = 30_000


def get_json(base_url: str, path: str, **params: Any) -> Any:
    """GET ``base_url/path?params`` from the server and decode its JSON."""
    query = ("?" + urllib.parse.urlencode(params)) if params else ""
    with urllib.request.urlopen(f"{base_url}/{path.lstrip('/')}{query}", timeout=30) as resp:
        return json.load(resp)


def wait_loaded(base_url: str) -> None:
    """Wait until the server's first load is done (runs are discovered in the background)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while get_json(base_url, "data/reload_state")["loading"]:
        if time.monotonic() > deadline:
            raise TimeoutError("the server's first load did not finish")
        time.sleep(0.02)


def run_colors(base_url: str) -> dict[str, tuple[int, int, int]]:
    """Each run's colour from ``/data/runs`` once the first load is done, as RGB."""
    wait_loaded(base_url)
    out = {}
    for run in get_json(base_url, "data/runs"):
        value = int(run["color"].lstrip("#"), 16)
        out[run["name"]] = ((value >> 16) & 255, (value >> 8) & 255, value & 255)
    return out


def open_dashboard(page: Any, base_url: str, name: str) -> None:
    """Load the UI on dashboard ``name`` (its ``#name`` route)."""
    page.goto(f"{base_url}/#{name}")


def scalar_card(page: Any, tag: str) -> Any:
    """The scalar card of ``tag``."""
    return page.locator(".scalar-card").filter(
        has=page.locator(".card-title", has_text=re.compile(f"^{re.escape(tag)}$"))
    )


def wait_dataset(page: Any, element: Any, **attrs: str) -> dict[str, str]:
    """Wait until ``element`` has ``data-ready="1"`` and every ``data-<attr>`` matches.

    Returns the element's data attributes after the wait.
    """
    element.wait_for(state="attached", timeout=WAIT_MS)
    want = {"ready": "1", **attrs}
    page.wait_for_function(
        "([el, want]) => Object.entries(want).every(([k, v]) => el.dataset[k] === v)",
        arg=[element.element_handle(timeout=WAIT_MS), want],
        timeout=WAIT_MS,
    )
    return element.evaluate("el => Object.assign({}, el.dataset)")


def wait_chart(page: Any, card: Any, **attrs: str) -> dict[str, str]:
    """Wait until the card's chart is drawn (``data-ready="1"``) and every ``data-<attr>`` matches."""
    card.scroll_into_view_if_needed(timeout=WAIT_MS)
    return wait_dataset(page, card.locator(".chart"), **attrs)


def wait_plot(page: Any, card: Any, **attrs: str) -> dict[str, str]:
    """The same for a card's plotly plot (``.plot``)."""
    card.scroll_into_view_if_needed(timeout=WAIT_MS)
    return wait_dataset(page, card.locator(".plot"), **attrs)


def chart_state(card: Any) -> dict[str, str]:
    """The chart's data-* attributes (``series``, ``points``, ``xRange``, ``yRange``, ``ready`` ...)."""
    return card.locator(".chart").evaluate("el => Object.assign({}, el.dataset)")


def color_pixels(png: bytes, color: tuple[int, int, int], tolerance: int = 12) -> int:
    """How many pixels of a PNG are within ``tolerance`` (per channel) of ``color``."""
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return int((np.abs(rgb - np.array(color, dtype=np.int16)) <= tolerance).all(axis=-1).sum())


def png_array(png: bytes) -> np.ndarray:
    """A PNG as an RGB array."""
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


# What a payload that ran (or could run) leaves in the page: the global it sets, event-handler
# attributes, inline scripts, ``javascript:`` URLs, and elements matching ``extra`` (a selector).
_SCRIPT_TRACES = """([flag, extra]) => ({
  flag: typeof window[flag],
  handlers: Array.from(document.querySelectorAll('*')).filter(
    e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).map(e => e.outerHTML.slice(0, 120)),
  inlineScripts: Array.from(document.querySelectorAll('script:not([src])'), e => e.outerHTML.slice(0, 120)),
  jsLinks: Array.from(document.querySelectorAll('[href],[src],[action],[formaction]')).filter(
    e => ['href', 'src', 'action', 'formaction'].some(
      a => (e.getAttribute(a) || '').trim().toLowerCase().startsWith('javascript:')))
    .map(e => e.outerHTML.slice(0, 120)),
  extra: extra ? Array.from(document.querySelectorAll(extra), e => e.outerHTML.slice(0, 120)) : [],
})"""


def script_traces(page: Any, flag: str, extra: str = "") -> dict[str, Any]:
    """The traces of script in ``page`` (see ``_SCRIPT_TRACES``); none when ``flag`` is
    ``"undefined"`` and every list is empty."""
    return page.evaluate(_SCRIPT_TRACES, [flag, extra])


NO_SCRIPT_TRACES = {"flag": "undefined", "handlers": [], "inlineScripts": [], "jsLinks": [], "extra": []}
