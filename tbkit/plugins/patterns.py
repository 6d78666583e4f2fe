"""Regular expressions from clients, matched in linear time: the one place a route compiles one.

A pattern a client sends (the run and tag filters of a download, ``group_by``, the
time-series tag search, custom-scalar chart regexes) is compiled here with RE2
(``google-re2``), whose matching time is linear in the text: Python's ``re`` backtracks,
and ``(a+)+$`` against a long name would hold a worker thread (and the GIL) for minutes.
RE2 has no backreferences and no lookaround; a pattern using them, one longer than
:data:`MAX_LENGTH`, or one whose compiled program would need more than :data:`MAX_MEMORY`
bytes is refused with :class:`~tbkit.errors.InvalidArgumentError` (a 400 that says why).

Semantics kept from ``re``: the same syntax for everything else (``(?P<name>...)``,
``(?i)``, classes, repetition), ``search``/``match``/``fullmatch`` as ``re`` has them,
case-sensitive unless asked. One difference: RE2's ``\\d``, ``\\w``, ``\\s`` and ``\\b``
are ASCII (write ``\\pL``, ``\\pN`` for letters and digits of any script).

Patterns the user types on the command line or passes to ``tbkit.read`` are trusted and
stay on ``re``.

Example:
    >>> compile_client(r"([^_]+)_seed\\d+", "group_by").search("lr=0.1_seed3").group(1)
    'lr=0.1'
    >>> compile_client("LOSS", "regex", ignore_case=True).search("train/loss") is not None
    True
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import re2  # type: ignore[import-untyped]

from tbkit.errors import InvalidArgumentError

__all__ = ["MAX_LENGTH", "MAX_MEMORY", "ClientMatch", "ClientPattern", "compile_client"]

MAX_LENGTH = 65536  # characters in one client pattern (the page joins run names into one alternation)
MAX_MEMORY = 2 << 20  # bytes RE2 may use for one compiled pattern (program and DFA cache)
_SURROGATE = re.compile("[\ud800-\udfff]")


class ClientMatch(Protocol):
    """A match of a :class:`ClientPattern` (the part of ``re.Match`` routes use)."""

    def group(self, index: int | str = 0, /) -> Any:
        """The text of group ``index`` (None when it did not take part)."""


class ClientPattern:
    """A compiled client pattern, with the part of ``re.Pattern``'s interface routes use.

    Names that are not valid UTF-8 (a run directory's name decoded with surrogate escapes)
    are matched with each lone surrogate read as U+FFFD, instead of raising.
    """

    def __init__(self, compiled: Any) -> None:
        self._compiled = compiled

    @property
    def pattern(self) -> str:
        """The pattern's source text."""
        return str(self._compiled.pattern)

    @property
    def groups(self) -> int:
        """The number of capture groups."""
        return int(self._compiled.groups)

    def search(self, text: str) -> ClientMatch | None:
        """The first match anywhere in ``text`` (``re.search``)."""
        return self._call(self._compiled.search, text)

    def match(self, text: str) -> ClientMatch | None:
        """A match at the start of ``text`` (``re.match``)."""
        return self._call(self._compiled.match, text)

    def fullmatch(self, text: str) -> ClientMatch | None:
        """A match of the whole of ``text`` (``re.fullmatch``)."""
        return self._call(self._compiled.fullmatch, text)

    @staticmethod
    def _call(method: Any, text: str) -> ClientMatch | None:
        try:
            found: ClientMatch | None = method(text)
        except UnicodeEncodeError:
            found = method(_SURROGATE.sub("\ufffd", text))
        return found

    def __repr__(self) -> str:
        return f"ClientPattern({self.pattern!r})"


def compile_client(pattern: str, name: str, *, ignore_case: bool = False) -> ClientPattern:
    """Compile the client-supplied ``pattern`` (the parameter ``name``) for linear-time matching.

    Args:
        pattern: The regular expression as the client sent it.
        name: What it is, for the error message (a parameter name, "group_by" ...).
        ignore_case: Match letters of either case.

    Raises:
        InvalidArgumentError: The pattern is not a string, is too long, uses what RE2 lacks
            (backreferences, lookaround), is not valid, or is too costly to compile.
    """
    if not isinstance(pattern, str):
        raise InvalidArgumentError(f"parameter {name!r} must be a string")
    if len(pattern) > MAX_LENGTH:
        raise InvalidArgumentError(
            f"parameter {name!r} is a regular expression of {len(pattern)} characters (at most {MAX_LENGTH})"
        )
    options = re2.Options()
    options.max_mem = MAX_MEMORY
    options.log_errors = False
    options.case_sensitive = not ignore_case
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        raise InvalidArgumentError(
            f"parameter {name!r} is not valid: {_reason(exc)} (the server matches regular "
            "expressions in linear time with RE2: no backreferences, no lookaround)"
        ) from None
    except (TypeError, ValueError, OverflowError) as exc:  # e.g. a NUL or a lone surrogate
        raise InvalidArgumentError(f"parameter {name!r} is not a valid regular expression: {exc}") from None
    return ClientPattern(compiled)


def _reason(exc: BaseException) -> str:
    text = exc.args[0] if exc.args else str(exc)
    reason = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if "too large" in reason:
        return f"it is too costly ({reason}; at most {MAX_MEMORY >> 20} MiB of compiled program)"
    return reason
