"""Whether any installed distribution may declare entry points of a group, found quickly.

``importlib.metadata.entry_points(group=...)`` looks at every installed distribution, and
in an environment of a couple of hundred distributions that costs 10-15 ms, paid by every
process at its first read (the registry asks for third-party plugins). Almost always no
distribution declares tbkit's groups. :func:`may_declare` answers that much by reading the
``entry_points.txt`` files directly (about 2 ms): False only when no distribution
``importlib.metadata`` could find there names the group; True whenever it might (the group
named in a file, or a place or finder this scan does not read: a zip file or an egg on
``sys.path``, a distribution finder of its own on ``sys.meta_path``), where the caller asks
``importlib.metadata`` as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from importlib.machinery import PathFinder

__all__ = ["may_declare"]

_INFO_SUFFIXES = (".dist-info", ".egg-info")


def may_declare(groups: Iterable[str], path: list[str] | None = None) -> bool:
    """Whether a distribution on ``path`` (``sys.path``) may declare entry points of ``groups``.

    Args:
        groups: Entry-point group names.
        path: The import path to look along; ``sys.path`` by default.

    Returns:
        False when no ``*.dist-info`` or ``*.egg-info`` directory there names any of the
        groups in its ``entry_points.txt`` and nothing else could hold a distribution.

    Example:
        >>> may_declare(["tbkit.no-such-group"], path=[])
        False
    """
    names = [group.encode() for group in groups]
    if any(_finds_distributions(finder) for finder in sys.meta_path):
        return True
    for entry in sys.path if path is None else path:
        root = entry or "."
        if os.path.basename(root.rstrip("/\\")).lower().endswith(".egg"):
            return True
        try:
            children = os.scandir(root)
        except (FileNotFoundError, PermissionError):
            continue  # nothing importlib.metadata could read either
        except OSError:
            return True  # a zip file, or another entry this scan cannot list
        with children:
            for child in children:
                if child.name.lower().endswith(_INFO_SUFFIXES) and _names_any(child.path, names):
                    return True
    return False


def _finds_distributions(finder: object) -> bool:
    """Whether ``finder`` finds distributions other than the standard path finder does."""
    return finder is not PathFinder and callable(getattr(finder, "find_distributions", None))


def _names_any(info: str, names: list[bytes]) -> bool:
    """Whether the distribution metadata at ``info`` may declare any of ``names``."""
    try:
        with open(os.path.join(info, "entry_points.txt"), "rb") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return False  # no entry points (or an ``.egg-info`` file, which holds none)
    except OSError:
        return True
    return any(name in text for name in names)
