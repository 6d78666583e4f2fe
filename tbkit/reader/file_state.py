"""What the reader keeps per event file (:class:`FileState`) and per unreadable spot (:class:`Problem`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileState", "Problem"]


@dataclass(frozen=True)
class Problem:
    """Something that could not be read: where, and why."""

    run: str
    path: str
    offset: int | None
    reason: str


@dataclass
class FileState:
    """How far one event file has been read, and what it told about itself."""

    path: str
    offset: int = 0
    resyncing: bool = False
    modern: bool = False  # a file_version record was seen: SessionLog rules, not the legacy one
    tail: Problem | None = None  # an incomplete last record, pending until more bytes come
    seen: int = -1  # the file's size when it was last read to its end (-1: never)
