"""Live updates: points and runs written while the page is open appear without a reload."""

from __future__ import annotations

import pytest

import tbkit
from tests.browser._ui import WAIT_MS, open_dashboard, scalar_card, wait_chart

pytestmark = pytest.mark.browser

TAG = "live/loss"


def test_new_points_and_new_run_appear_without_reload(page, serve, tmp_path):
    first = tbkit.SummaryWriter(str(tmp_path / "first"))
    second = None
    try:
        for step in range(10):
            first.add_scalar(TAG, 1.0 / (1 + step), step)
        first.flush()
        server = serve(tmp_path, reload_interval=0.5)
        open_dashboard(page, server.url, "timeseries")
        card = scalar_card(page, TAG)
        wait_chart(page, card, series="1", total="10")
        navigations = []
        page.on("framenavigated", lambda frame: navigations.append(frame.url))

        for step in range(10, 25):
            first.add_scalar(TAG, 1.0 / (1 + step), step)
        first.flush()
        state = wait_chart(page, card, series="1", total="25")
        assert state["total"] == "25"
        assert float(state["xRange"].split(",")[1]) >= 24

        second = tbkit.SummaryWriter(str(tmp_path / "second"))
        for step in range(5):
            second.add_scalar(TAG, 2.0 + step, step)
        second.flush()
        page.locator(".run-list .run-item[data-run='second']").wait_for(timeout=WAIT_MS)
        state = wait_chart(page, card, series="2", total="30")
        assert state["series"] == "2"
        assert navigations == [], "the page reloaded itself"
    finally:
        first.close()
        if second is not None:
            second.close()
