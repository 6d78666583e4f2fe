"""Pandas helpers shared by the kinds' frame builders (``plugins/<kind>/frames.py``).

A leaf: pandas is imported when a frame is built, never when a kind's ``__init__`` is.
"""

from __future__ import annotations

from typing import Any

from tbkit.errors import MissingDependencyError

__all__ = ["pandas"]


def pandas() -> Any:
    """The pandas module (MissingDependencyError naming the frames when it is absent)."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is a dependency
        raise MissingDependencyError("pandas", feature="tbkit.read frames") from exc
    return pandas
