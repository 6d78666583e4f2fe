"""Every dashboard over data named with script and event-handler payloads: nothing from the
data becomes an element, an attribute or a link, and no payload runs (issue 14's browser probe).

Runs, tags, hparams names and values, Markdown text, embedding labels, custom-scalar
layouts and image/audio/histogram tags all carry payloads; each enabled dashboard is
opened in turn and, once its requests have settled, the page is checked for the payloads'
global flag, event-handler attributes, inline scripts, ``javascript:`` links and the
payloads' own elements. The ``page`` fixture fails the test on page errors and console
errors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbkit
from tests.browser._ui import NO_SCRIPT_TRACES, WAIT_MS, get_json, open_dashboard, script_traces

pytestmark = pytest.mark.browser

FLAG = "window.__pwned=1"
IMG = f'<img src=x id=payload onerror="{FLAG}">'
SVG = f"<svg id=payload onload={FLAG}>"
LINK = f"javascript:{FLAG}"
# "/" in a run name makes a nested directory; these payloads have none.
NAMES = [IMG, SVG, LINK]
ANCHOR = '<a href="https://evil.example/" id=payload>click</a>'
MARKDOWN = f"**bold** {IMG} {SVG} [click me]({LINK}) <a href='{LINK}'>here</a>"

PAYLOAD_ELEMENTS = '#payload, img[src="x"], svg[onload], a[href*="evil.example"]'


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("payloads")
    rng = np.random.default_rng(0)
    for i, run in enumerate(NAMES):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(3):
                for tag in NAMES:
                    w.add_scalar(tag, float(step + i), step)
                # Names and descriptions are data too (tensorboardX's keywords).
                w.add_scalar("described", float(step), step, display_name=ANCHOR, summary_description=ANCHOR)
                # One kind per tag: a tag's first kind is its kind for every reader.
                w.add_histogram(f"histogram {IMG}", rng.normal(size=50), step)
                w.add_image(f"image {SVG}", rng.integers(0, 255, (3, 4, 4), dtype=np.uint8), step)
                w.add_audio(
                    f"audio {IMG}", rng.uniform(-1, 1, 400).astype(np.float32), step, sample_rate=8000
                )
                w.add_pr_curve(f"pr {IMG}", rng.integers(0, 2, 20), rng.uniform(size=20), step)
            w.add_text(f"text {SVG}", MARKDOWN, 0)
            w.add_custom_scalars({IMG: {SVG: ["Multiline", [NAMES[0], NAMES[1]]]}})
            w.add_hparams({IMG: SVG, "lr": 0.1 * (i + 1)}, {f"hp/{SVG}": float(i)}, run_name=".")
            if i == 0:
                w.add_embedding(
                    rng.normal(size=(6, 3)), metadata=[IMG, SVG, LINK] * 2, tag=f"embedding {IMG}"
                )
    return root


def test_no_payload_becomes_markup_on_any_dashboard(page, serve, logdir, page_problems):
    server = serve(logdir)
    listing = get_json(server.url, "/data/plugins_listing")
    enabled = [name for name, entry in listing.items() if entry["enabled"]]
    assert {"timeseries", "scalars", "text", "hparams", "projector", "images"} <= set(enabled)
    for name in enabled:
        open_dashboard(page, server.url, name)
        page.locator(f".dashboard[data-dashboard='{name}']").wait_for(timeout=WAIT_MS)
        page.wait_for_load_state("networkidle", timeout=WAIT_MS)
        page.wait_for_timeout(300)  # a frame for what the last answers draw
        assert script_traces(page, "__pwned", PAYLOAD_ELEMENTS) == NO_SCRIPT_TRACES, name
    text = page.evaluate("() => document.body.innerText")
    assert isinstance(text, str)
    _forget_blocked_images(page_problems)


def _forget_blocked_images(page_problems) -> None:
    """A sanitizer may keep ``<img src=x>`` without its handler; its 404 is no script error."""
    errors = page_problems.console_errors
    errors[:] = [m for m in errors if not (m.startswith("Failed to load resource") and "/x)" in m)]
