"""Requests first: the in-flight count, the bounded wait, the middleware and the server's wiring."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Callable

import pytest

from tbkit.provider import InMemoryProvider
from tbkit.server.foreground import Foreground
from tbkit.server.serve import start


def _in_thread(fn: Callable[[], None]) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()

    def run() -> None:
        fn()
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def test_give_way_waits_for_the_requests_in_flight() -> None:
    fg = Foreground(longest=60.0)
    fg.give_way()  # idle: at once
    fg.begin()
    fg.begin()
    thread, done = _in_thread(fg.give_way)
    assert not done.wait(0.2)  # two requests in flight
    fg.end()
    assert not done.wait(0.2)  # one left
    fg.end()
    assert done.wait(10)
    thread.join()
    assert fg.busy == 0


def test_give_way_waits_no_longer_than_its_bound() -> None:
    fg = Foreground(longest=0.05)
    fg.begin()  # a request that never ends
    thread, done = _in_thread(fg.give_way)
    assert done.wait(10)  # loading goes on even so
    thread.join()


def test_the_middleware_counts_a_request_until_its_body_is_closed() -> None:
    fg = Foreground()
    seen: list[int] = []

    def app(environ: dict, start_response: Callable) -> list[bytes]:
        seen.append(fg.busy)
        start_response("200 OK", [])
        return [b"ok"]

    body = fg.wrap(app)({}, lambda *a: None)
    assert seen == [1] and fg.busy == 1  # answered, not yet sent
    assert list(body) == [b"ok"]
    body.close()  # type: ignore[attr-defined]
    body.close()  # type: ignore[attr-defined]  # twice: counted once
    assert fg.busy == 0


def test_a_failing_app_is_not_counted_as_in_flight() -> None:
    fg = Foreground()

    def app(environ: dict, start_response: Callable) -> list[bytes]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fg.wrap(app)({}, lambda *a: None)
    assert fg.busy == 0


class _Recording(InMemoryProvider):
    def __init__(self) -> None:
        super().__init__({})
        self.give_ways: list[Callable[[], None] | None] = []

    def set_give_way(self, give_way: Callable[[], None] | None) -> None:
        self.give_ways.append(give_way)


def test_a_reloading_server_hands_its_provider_a_give_way_and_takes_it_back() -> None:
    provider = _Recording()
    with start(provider, host="127.0.0.1", port=0, reload_interval=0.0) as handle:
        (give_way,) = provider.give_ways
        assert give_way is not None
        give_way()  # nothing in flight now: returns at once
        with urllib.request.urlopen(handle.url + "data/runs", timeout=30) as response:
            assert json.load(response) == []
    assert provider.give_ways[1:] == [None]


def test_a_static_server_hands_out_no_give_way() -> None:
    provider = _Recording()
    with start(provider, host="127.0.0.1", port=0, reload_interval=None):
        pass
    assert provider.give_ways == []
