"""A tiny progress bar for the command line: one line on stderr, redrawn in place.

Shown only when the stream is a terminal (a pipe, a file or a CI log gets nothing), and
redrawn at most every 0.1 s, so updating it in a loop costs next to nothing. The
environment variable ``TBKIT_PROGRESS`` forces it on (``1``) or off (``0``).

Example:
    >>> with Progress(3, "reading", unit="files", enabled=False) as bar:
    ...     for _ in range(3):
    ...         bar.advance(1)
    >>> bar.done
    3.0
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "format_amount"]

_WIDTH = 24
_INTERVAL = 0.1


def format_amount(value: float, unit: str) -> str:
    """A short human reading of ``value``: bytes as kB/MB/GB, counts with k/M suffixes.

    Example:
        >>> format_amount(1_500_000, "B"), format_amount(12_345, "rows")
        ('1.5 MB', '12.3k rows')
    """
    if unit == "B":
        for factor, suffix in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if value >= factor:
                return f"{value / factor:.1f} {suffix}"
        return f"{value:.0f} B"
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.1f}{suffix} {unit}"
    return f"{value:.0f} {unit}"


def _enabled(stream: TextIO) -> bool:
    forced = os.environ.get("TBKIT_PROGRESS", "").strip()
    if forced in {"0", "1"}:
        return forced == "1"
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


class Progress:
    """A progress bar over ``total`` units of work (bytes, rows, files ...).

    Args:
        total: The amount of work; 0 or less draws a counter without a bar.
        label: What is being done, printed first (``"reading"``, ``"writing scalars"``).
        unit: ``"B"`` for bytes (shown as kB/MB/GB), else a word (``"rows"``).
        stream: Where to draw (default ``sys.stderr``).
        enabled: Draw or not; default: only when ``stream`` is a terminal.
    """

    def __init__(
        self,
        total: float,
        label: str,
        *,
        unit: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
    ) -> None:
        self.total = float(total)
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _enabled(self.stream) if enabled is None else enabled
        self.done = 0.0
        self._start = time.monotonic()
        self._last_draw = 0.0
        self._width = 0

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def advance(self, amount: float = 1) -> None:
        """Record ``amount`` more units done."""
        self.update(self.done + amount)

    def update(self, done: float) -> None:
        """Set the units done so far (clamped to the total when there is one)."""
        self.done = min(done, self.total) if self.total > 0 else done
        self._draw()

    def line(self) -> str:
        """The text of the bar as it would be drawn now."""
        elapsed = time.monotonic() - self._start
        amount = format_amount(self.done, self.unit)
        if self.total <= 0:
            return f"{self.label}  {amount}  {elapsed:.1f} s"
        fraction = self.done / self.total
        filled = round(fraction * _WIDTH)
        bar = "#" * filled + "." * (_WIDTH - filled)
        total = format_amount(self.total, self.unit)
        return f"{self.label}  [{bar}] {fraction:4.0%}  {amount} / {total}  {elapsed:.1f} s"

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < _INTERVAL:
            return
        self._last_draw = now
        text = self.line()
        pad = max(0, self._width - len(text))
        self._width = len(text)
        try:
            self.stream.write("\r" + text + " " * pad)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: stop drawing
            self.enabled = False

    def close(self) -> None:
        """Draw the final state and end the line (nothing when disabled)."""
        if not self.enabled:
            return
        self._draw(force=True)
        try:
            self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass
        self.enabled = False
