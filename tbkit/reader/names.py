"""Run and tag selections: a regular expression (matched against the whole name) or names.

``tbkit.read(logdir, runs=..., tags=...)``, ``tbkit inspect`` and the distributed read
take the same selections; :func:`name_filter` turns one into a predicate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from tbkit.errors import InvalidArgumentError

__all__ = ["NameSpec", "name_filter"]

NameSpec = str | re.Pattern[str] | Iterable[str] | None


def name_filter(spec: NameSpec, what: str = "names") -> Callable[[str], bool] | None:
    """A predicate from a regex (matched against the whole name) or a collection of names.

    Example:
        >>> name_filter("train.*")("train/a"), name_filter(["eval"])("train")
        (True, False)
    """
    if spec is None:
        return None
    if isinstance(spec, re.Pattern):
        return lambda name: spec.fullmatch(name) is not None
    if isinstance(spec, str):
        try:
            pattern = re.compile(spec)
        except re.error as exc:
            raise InvalidArgumentError(f"{what}={spec!r} is not a valid regular expression: {exc}") from exc
        return lambda name: pattern.fullmatch(name) is not None
    names = frozenset(spec)
    if not all(isinstance(n, str) for n in names):
        raise InvalidArgumentError(f"{what} must be a regular expression or a list of strings")
    return names.__contains__
