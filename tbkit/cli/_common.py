"""What the commands share: opening a logdir with a progress bar, name filters, kinds.

Reading goes through :func:`tbkit.read`; the bytes are read in slices (every file of the
logdir a slice at a time) so that the progress bar can follow a long read.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tbkit._progress import Progress
from tbkit.errors import InvalidArgumentError, NotFoundError, StorageError
from tbkit.record import storage

if TYPE_CHECKING:
    from tbkit.reader.logdir import Logdir

__all__ = ["SLICE", "open_logdir", "quiet_reader", "search_regex"]

SLICE = 4 << 20  # the least bytes read per file and round while a progress bar is shown
ROUNDS = 25  # rounds of reading (each reads a slice of every file) while a progress bar is shown


def search_regex(pattern: str | None, what: str) -> str | None:
    """A full-match regex that accepts names where ``pattern`` matches anywhere (``re.search``).

    ``tbkit.read`` matches whole names; on the command line a pattern matches anywhere, as in
    TensorBoard's filter boxes (anchor it with ``^...$`` for whole names).

    Example:
        >>> bool(re.fullmatch(search_regex("loss", "tags"), "train/loss_total"))
        True
    """
    if pattern is None:
        return None
    try:
        re.compile(pattern)
    except re.error as exc:
        raise InvalidArgumentError(f"--{what} {pattern!r} is not a valid regular expression: {exc}") from exc
    return f"(?s:.*?(?:{pattern}).*)"


@contextmanager
def quiet_reader() -> Iterator[None]:
    """Silence the reader's warnings about damaged records: the commands report problems themselves."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="tbkit: ", category=RuntimeWarning)
        yield


def _sizes(files: dict[str, list[str]]) -> dict[str, int]:
    sizes = {}
    for paths in files.values():
        for path in paths:
            try:
                sizes[path] = storage.size(path)
            except StorageError:
                sizes[path] = 0
    return sizes


def open_logdir(
    logdir: str,
    *,
    runs: str | None = None,
    tags: str | list[str] | None = None,
    purge_orphaned_data: bool = True,
    progress: bool | None = None,
) -> Logdir:
    """``tbkit.read(logdir)`` with every event file read now, under a progress bar on stderr.

    Args:
        logdir: Local path or fsspec URL.
        runs: A regex matched anywhere in run names (None: every run).
        tags: A regex matched anywhere in tag names, or a list of exact tags (None: every tag).
        purge_orphaned_data: As :func:`tbkit.read`.
        progress: Draw the bar (default: when stderr is a terminal).

    Raises:
        NotFoundError: A local ``logdir`` that does not exist, or a logdir without event files.
    """
    from tbkit.reader.logdir import read

    if storage.is_local(logdir) and not storage.exists(logdir):
        raise NotFoundError(f"no such log directory: {logdir}")
    tag_spec = search_regex(tags, "tags") if isinstance(tags, str) else tags
    ld = read(logdir, runs=search_regex(runs, "runs"), tags=tag_spec, purge_orphaned_data=purge_orphaned_data)
    index = ld.provider.index  # read in slices to drive the bar (tbkit.read has no progress hook)
    files = index.files()
    if not files:
        where = f" matching --runs {runs!r}" if runs else ""
        raise NotFoundError(f"no event files{where} under {logdir}")
    sizes = _sizes(files)
    total = sum(sizes.values())
    with quiet_reader(), Progress(total, "reading", unit="B", enabled=progress) as bar:
        biggest = max(sizes.values())
        if not bar.enabled or biggest <= SLICE:
            index.reload()
            bar.update(total)
            return ld
        step = max(SLICE, -(-biggest // ROUNDS))
        for k in range(1, -(-biggest // step) + 1):
            index.reload(limit=step)
            bar.update(sum(min(size, k * step) for size in sizes.values()))
        index.reload()  # anything a slice could not finish (a record longer than a slice, new bytes)
        bar.update(total)
    return ld
