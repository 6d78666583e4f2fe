"""A decoder module behind a guard: one hostile record fails as a ``ValueError``, never worse.

The reader calls a plugin's decoder per series and per point (:mod:`tbkit.plugins.registry`
hands it out wrapped). A decoder may raise anything on a record crafted to break it
(``RecursionError``, ``MemoryError``, ``KeyError``...); the guard turns that into a
``ValueError`` naming the plugin, which the reader records as a problem for that record.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["GUARDED", "GuardedDecoder"]

# The decoder functions the reader calls per series or per point.
GUARDED = ("decode", "migrate", "check", "empty_value")


def _failure(name: str, exc: Exception) -> ValueError:
    """The ``ValueError`` that stands for ``exc`` raised by the ``name`` decoder."""
    detail = str(exc)[:200] or type(exc).__name__
    return ValueError(f"the {name} decoder failed ({type(exc).__name__}: {detail})")


class GuardedDecoder:
    """A decoder module whose per-record functions fail only with ``ValueError``.

    ``decode``, ``migrate``, ``check`` and ``empty_value`` pass ``ValueError`` (every
    ``tbkit.errors.InvalidArgumentError`` is one) through and turn any other exception into a
    ``ValueError`` saying which plugin failed and how; ``supported`` answers False when it
    raises (the series is refused, with a problem). Other attributes are read from the module;
    one set on the guard (a test patching a decoder through the registry) shadows the module's.

    Example:
        >>> from tbkit.plugins.registry import decoder
        >>> dec = decoder("scalars")
        >>> dec.module.__name__, dec.PLUGIN_NAME
        ('tbkit.plugins.scalars.decode', 'scalars')
    """

    def __init__(self, name: str, module: ModuleType | Any) -> None:
        self._name = name
        self.module = module
        self._guards: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
        # The per-record functions the module has now are set on the guard itself: reading
        # one is then an instance attribute, not a __getattr__ call (the reader asks per
        # record). Each looks its function up in the module at each call, so a function the
        # module gets later (a test patching it) is the one called.
        for attr in GUARDED:
            if callable(getattr(module, attr, None)):
                self.__dict__[attr] = self._late(attr)

    def __getattr__(self, attr: str) -> Any:
        found = getattr(self.module, attr)
        if not callable(found) or (attr != "supported" and attr not in GUARDED):
            return found
        cached = self._guards.get(attr)
        if cached is not None and cached[0] is found:  # the module's function unchanged
            return cached[1]
        guarded = self._guard_supported(found) if attr == "supported" else self._guard(found)
        self._guards[attr] = (found, guarded)
        return guarded

    def _late(self, attr: str) -> Callable[..., Any]:
        """The guarded ``attr`` of the module, looked up at each call."""
        name, module = self._name, self.module

        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return getattr(module, attr)(*args, **kwargs)
            except ValueError:
                raise
            except Exception as exc:  # a hostile record must cost only itself
                raise _failure(name, exc) from exc

        guarded.__name__ = attr
        return guarded

    def __repr__(self) -> str:
        return f"GuardedDecoder({self._name!r}, {self.module!r})"

    def _guard(self, function: Callable[..., Any]) -> Callable[..., Any]:
        name = self._name

        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except ValueError:
                raise
            except Exception as exc:  # a hostile record must cost only itself
                raise _failure(name, exc) from exc

        guarded.__wrapped__ = function  # type: ignore[attr-defined]
        return guarded

    @staticmethod
    def _guard_supported(function: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> bool:
            try:
                return bool(function(*args, **kwargs))
            except Exception:  # an unreadable payload is refused, with a problem
                return False

        guarded.__wrapped__ = function  # type: ignore[attr-defined]
        return guarded
