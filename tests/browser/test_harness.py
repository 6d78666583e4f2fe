"""The browser harness itself: it sees page errors, console errors and requests off 127.0.0.1."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_harness_records_errors_and_foreign_requests(page, page_problems):
    page.set_content(
        """<script>
        console.warn("a warning is fine");
        console.error("boom in console");
        fetch("http://example.com/leak").catch(() => { window.__blocked = true; });
        setTimeout(() => { throw new Error("uncaught boom"); }, 0);
        </script>"""
    )
    page.wait_for_function("window.__blocked === true", timeout=10_000)
    page.wait_for_timeout(100)
    assert any("boom in console" in m for m in page_problems.console_errors)
    assert not any("a warning is fine" in m for m in page_problems.console_errors)
    assert any("uncaught boom" in m for m in page_problems.page_errors)
    assert page_problems.foreign_requests == ["http://example.com/leak"]
    with pytest.raises(AssertionError, match=r"request off 127\.0\.0\.1"):
        page_problems.check()
    # Everything seen was provoked on purpose: clear it so the fixture's own check passes.
    page_problems.console_errors.clear()
    page_problems.page_errors.clear()
    page_problems.foreign_requests.clear()
