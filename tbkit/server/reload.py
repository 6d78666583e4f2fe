"""Live data: the reload state the UI polls, and the background thread that reloads the provider.

:class:`ReloadState` is what ``/data/reload_state`` answers: a ``generation`` that grows
whenever the provider's data changed (also during the first load, run by run), the time
of the last finished reload, and whether the first load is still going. A
:class:`Reloader` calls the provider's ``reload`` every ``interval`` seconds (once when
the interval is 0) in a daemon thread, starting at once, so the server answers while
the first load goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from tbkit.provider import DataProvider

__all__ = ["ReloadState", "Reloader"]

_log = logging.getLogger("tbkit.server")


class ReloadState:
    """The reload counters the UI polls; safe to use from several threads.

    Args:
        interval: Seconds between reloads (0: the data are loaded once).
        loading: True while a first load is pending or running.
    """

    def __init__(self, interval: float = 0.0, *, loading: bool = False) -> None:
        self.interval = float(interval)
        self.generation = 0
        self.last_reload = 0.0
        self.loading = loading
        self._seen: int | None = None
        self._lock = threading.Lock()

    def observe(self, data_generation: int) -> None:
        """Note the provider's data generation; bumps :attr:`generation` when it changed."""
        with self._lock:
            if data_generation != self._seen:
                self._seen = data_generation
                self.generation += 1

    def finished(self, data_generation: int) -> None:
        """Note the end of one reload."""
        self.observe(data_generation)
        with self._lock:
            self.last_reload = time.time()
            self.loading = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON answer of ``/data/reload_state``."""
        with self._lock:
            return {"generation": self.generation, "last_reload": self.last_reload, "loading": self.loading}


def reload_provider(provider: DataProvider, state: ReloadState | None = None) -> int:
    """Reload ``provider`` once (:meth:`~tbkit.provider.DataProvider.reload`).

    Returns the provider's data generation, also noted in ``state``.
    """
    progress = None if state is None else (lambda: state.observe(int(provider.generation)))
    generation = int(provider.reload(progress=progress))
    if state is not None:
        state.finished(generation)
    return generation


class Reloader:
    """Reloads a provider in a daemon thread: at once, then every ``state.interval`` seconds.

    Args:
        provider: The provider to reload.
        state: The counters to update.
        on_first_load: Called in the reload thread once the first reload succeeded.

    Attributes:
        first_load: Set once the first reload is over (failed or not) and ``on_first_load``
            has returned.
    """

    def __init__(
        self, provider: DataProvider, state: ReloadState, on_first_load: Callable[[], None] | None = None
    ) -> None:
        self.provider = provider
        self.state = state
        self.on_first_load = on_first_load
        self.first_load = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def reload_once(self) -> int:
        """One reload, in the calling thread; returns the data generation."""
        return reload_provider(self.provider, self.state)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.reload_once()
                if not self.first_load.is_set() and self.on_first_load is not None:
                    self.on_first_load()
            except Exception:  # keep serving what was read; try again next time
                _log.exception("tbkit: reload failed")
                with self.state._lock:
                    self.state.loading = False
            finally:
                self.first_load.set()
            if self.state.interval <= 0:
                return
            self._stop.wait(self.state.interval)

    def start(self) -> Reloader:
        """Start the thread (returns self)."""
        self.state.loading = True
        self._thread = threading.Thread(target=self._run, name="tbkit-reload", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Ask the thread to stop and wait for it (a reload in progress finishes first)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._thread is None or not self._thread.is_alive():
            self.first_load.set()  # stopped before it ran: nobody waits forever
