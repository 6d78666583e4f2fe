"""Which files a run may name: the one policy for every plugin file a request or a frame reads.

A run names files: ``projector_config.pbtxt`` names tensors, metadata, bookmarks and
sprites; profile traces are found under the run. Each such file is read only when its real
path (symlinks resolved, ``..`` applied) lies inside one of the **allowed roots**: the real
path of the log directory, and the real path of the file's run directory. So a run
directory the user linked into the logdir on purpose is followed (its files resolve inside
its own real directory), while a file a run names that resolves anywhere else (a symlink to
``/etc/passwd``, an absolute path, ``../../secret``) is not read, unless the server runs
with ``--allow_outside_files``. Remote paths (fsspec URLs) have no symlinks: they are
checked by their normalized text.

Example:
    >>> inside_roots("/logs/run/a.tsv", ["/logs"], local=False)
    True
    >>> inside_roots("/logs/run/../../etc/passwd", ["/logs"], local=False)
    False
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

__all__ = ["OUTSIDE_HINT", "inside_roots", "is_allowed"]

OUTSIDE_HINT = "it resolves outside the log directory; `tbkit serve --allow_outside_files` reads such files"


def _local_path(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _real(path: str, local: bool) -> str:
    if local:
        return os.path.realpath(_local_path(path))
    scheme, sep, rest = path.partition("://")
    return f"{scheme}{sep}{posixpath.normpath(rest)}" if sep else posixpath.normpath(path)


def _under(path: str, root: str) -> bool:
    root = root.rstrip("/" + os.sep) or root
    return path == root or path.startswith(root + ("/" if "://" in root else os.sep))


def inside_roots(path: str, roots: Iterable[str], *, local: bool = True) -> bool:
    """Whether ``path``, resolved (``local``: symlinks and ``..``; else ``..`` alone), lies in a root.

    The roots are resolved the same way, so a root that is itself a link counts as its target.
    """
    real = _real(path, local)
    return any(_under(real, _real(root, local)) for root in roots)


def is_allowed(path: str, *, logdir: str, run_dir: str, allow_outside: bool = False) -> bool:
    """The policy: may the file ``path`` a run (in ``run_dir``) names be read?

    True with ``allow_outside``; else when ``path`` resolves inside the log directory's real
    tree or the run directory's (a run directory linked into the logdir is followed).
    """
    if allow_outside:
        return True
    local = "://" not in path or path.startswith("file://")
    return inside_roots(path, [logdir, run_dir], local=local)
