"""Requests first: the server's background loading waits while requests are being answered.

During a long first load, the reload thread applies records under the index lock and keeps
the interpreter busy, so each request waited for both: on 1 run x 10,000 tags a page opened
mid-load drew its first chart about 3x later than on loaded data. :class:`Foreground`
counts the requests in flight (a WSGI middleware, :meth:`Foreground.wrap`); the provider's
loading calls :meth:`Foreground.give_way` before each window of records
(:meth:`~tbkit.provider.DataProvider.set_give_way`), which waits until no request is in
flight, or at most ``longest`` seconds, so that loading never stops while a client keeps
requesting (it goes on at about one window per ``longest``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["Foreground"]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Foreground:
    """The requests in flight, for background work to give way to.

    Args:
        longest: The most seconds one :meth:`give_way` waits.

    Example:
        >>> fg = Foreground()
        >>> fg.begin(); fg.busy
        1
        >>> fg.end(); fg.give_way()  # nothing in flight: returns at once
    """

    def __init__(self, longest: float = 0.25) -> None:
        self.longest = float(longest)
        self.busy = 0
        self._idle = threading.Condition()

    def begin(self) -> None:
        """A request started."""
        with self._idle:
            self.busy += 1

    def end(self) -> None:
        """A request ended (its response sent or abandoned)."""
        with self._idle:
            self.busy -= 1
            if self.busy <= 0:
                self.busy = 0
                self._idle.notify_all()

    def give_way(self) -> None:
        """Wait until no request is in flight, at most :attr:`longest` seconds."""
        with self._idle:
            if self.busy:
                self._idle.wait_for(lambda: not self.busy, timeout=self.longest)

    def wrap(self, app: WSGIApp) -> WSGIApp:
        """``app`` with each request counted from its call until its response is closed."""

        def counted(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            self.begin()
            try:
                body = app(environ, start_response)
            except BaseException:
                self.end()
                raise
            return _Counted(body, self.end)

        return counted


class _Counted:
    """A response body that says when it is closed (the WSGI server closes every body)."""

    def __init__(self, body: Iterable[bytes], done: Callable[[], None]) -> None:
        self._body = body
        self._done: Callable[[], None] | None = done

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._body)

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            done, self._done = self._done, None
            if done is not None:
                done()
