"""The frame methods of :class:`~tbkit.reader.logdir.Logdir`, by kind, and :func:`frame_kinds`.

``Logdir``'s methods are marked as they are defined: :func:`frame_method` for a frame of data
named after its kind, :func:`dispatched` for one that is a one-line ``self.frame(kind)`` (its
kind's ``Plugin.frames`` builds it), :func:`about_method` for a frame about the logdir itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tbkit.plugins import registry

__all__ = ["about_method", "dispatched", "frame_kinds", "frame_method", "has_own_method"]

_DATA: list[str] = []  # the frame methods of the data, in the order they are defined
_ABOUT: list[str] = []  # the frame methods about the logdir itself (runs, tags, problems)
_DISPATCHED: set[str] = set()  # the frame methods a kind's Plugin.frames builds
_F = TypeVar("_F", bound=Callable[..., Any])


def frame_method(method: _F) -> _F:
    """Mark a :class:`Logdir` method as one that gives a frame of its name (a data kind)."""
    _DATA.append(method.__name__)
    return method


def dispatched(method: _F) -> _F:
    """Mark a :class:`Logdir` frame method as a one-line ``self.frame(kind)``: its kind's
    ``Plugin.frames`` builds it (so :meth:`Logdir.frame` calls the builder, not the method)."""
    _DISPATCHED.add(method.__name__)
    return method


def about_method(method: _F) -> _F:
    """Mark a :class:`Logdir` method as one that gives a frame about the logdir itself."""
    _ABOUT.append(method.__name__)
    return method


def frame_kinds() -> tuple[str, ...]:
    """The frames a :class:`Logdir` gives by name (:meth:`Logdir.frame`): the data kinds of
    its methods, then those plugins declare in ``Plugin.frames`` (third-party ones too),
    then those about the logdir itself (``runs``, ``tags``, ``problems``).

    Example:
        >>> frame_kinds()[-3:]
        ('runs', 'tags', 'problems')
    """
    own = (*_DATA, *_ABOUT)
    declared = [kind for kind in registry.frame_plugins() if kind not in own]  # a method wins
    return (*_DATA, *declared, *_ABOUT)


def has_own_method(kind: str) -> bool:
    """Whether ``kind``'s frame is its ``Logdir`` method's own work (not a dispatch to a plugin)."""
    return (kind in _DATA or kind in _ABOUT) and kind not in _DISPATCHED
