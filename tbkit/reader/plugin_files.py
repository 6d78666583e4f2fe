"""The files of the file-based kinds (projector, profile): listed by their decoders, read for the provider.

Paths are relative to a run's directory; only what a kind's decoder lists (its
``plugin_files``) can be read, so a request never reaches another file. Each listed file
must also pass :mod:`tbkit.plugins._paths`' policy: its real path inside the log directory's
real tree or its run directory's; one resolving elsewhere (a symlink, an absolute or ``..``
path) is neither listed nor read, unless the index's policy (:func:`set_file_policy`, which
``MultiLogdirProvider(allow_outside_files=True)`` sets for ``tbkit serve
--allow_outside_files``) allows files outside.

On object stores the listing is made from the index's last discovery (its whole recursive
listing, :meth:`~tbkit.reader.index.LogdirIndex.listed_tree`): the decoders are handed it
(``plugin_files(..., tree=)``), each file's size is the listed one, and a plugin's listing
is kept until the next discovery, so listing costs no LIST or HEAD request after a reload
(the projector reads each config once per discovery). Local logdirs are asked each time.
"""

from __future__ import annotations

import posixpath
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tbkit.errors import NotFoundError, StorageError
from tbkit.plugins import registry
from tbkit.plugins._paths import OUTSIDE_HINT, is_allowed
from tbkit.provider import PluginFile
from tbkit.record import storage

if TYPE_CHECKING:
    from tbkit.reader.index import LogdirIndex

__all__ = ["FilePolicy", "list_plugin_files", "read_listed", "read_plugin_file", "set_file_policy"]


@dataclass(frozen=True)
class FilePolicy:
    """Where an index's plugin files may resolve: ``root`` (the log directory; None: the
    index's own logdir) and whether files outside are allowed."""

    root: str | None = None
    allow_outside: bool = False


_policies: weakref.WeakKeyDictionary[LogdirIndex, FilePolicy] = weakref.WeakKeyDictionary()
# Per index and plugin, the listing made from a discovery's tree (the tree, the policy, the files)
_listings: weakref.WeakKeyDictionary[
    LogdirIndex, dict[str, tuple[dict[str, int], FilePolicy, dict[str, list[PluginFile]]]]
] = weakref.WeakKeyDictionary()


def set_file_policy(index: LogdirIndex, *, root: str | None = None, allow_outside: bool = False) -> None:
    """Set the file policy of ``index``: ``root`` is the log directory it belongs to (a
    provider reading each run as an index of its own passes the logdir), ``allow_outside``
    lets files resolving outside it be read (``--allow_outside_files``)."""
    _policies[index] = FilePolicy(root, allow_outside)


def _allowed(index: LogdirIndex, run: str, path: str) -> bool:
    policy = _policies.get(index, FilePolicy())
    root = index.logdir if policy.root is None else policy.root
    return is_allowed(path, logdir=root, run_dir=index.run_dir(run), allow_outside=policy.allow_outside)


def list_plugin_files(
    index: LogdirIndex, plugin_name: str, runs: set[str] | None = None
) -> dict[str, list[PluginFile]]:
    """``{run: [files]}`` of a file-based plugin, paths relative to the run directory.

    The plugin's decoder lists them (its ``plugin_files``); any other plugin has none.
    """
    spec = registry.plugins().get(plugin_name)
    lister = (
        getattr(registry.decoder(plugin_name), "plugin_files", None) if spec and spec.file_based else None
    )
    if lister is None:
        return {}
    file_runs = index.file_runs()  # discovers first when nothing was
    tree = index.listed_tree()
    if tree is None:
        return _listed(index, lister(index.logdir, file_runs, index.run_dir, index.wants_run), runs, None)
    policy = _policies.get(index, FilePolicy())
    kept = _listings.setdefault(index, {}).get(plugin_name)
    if kept is None or kept[0] is not tree or kept[1] != policy:
        found = lister(index.logdir, file_runs, index.run_dir, index.wants_run, tree=tree)
        kept = (tree, policy, _listed(index, found, None, tree))
        _listings[index][plugin_name] = kept
    return {run: list(files) for run, files in kept[2].items() if runs is None or run in runs}


def _listed(
    index: LogdirIndex, found: list[tuple[str, str]], runs: set[str] | None, tree: dict[str, int] | None
) -> dict[str, list[PluginFile]]:
    """The files a lister found, allowed by the policy, with their sizes (from ``tree`` if given)."""
    out: dict[str, list[PluginFile]] = {}
    for run, relative in found:
        if runs is not None and run not in runs:
            continue
        path = storage.join(index.run_dir(run), *relative.split("/"))
        if not _allowed(index, run, path):
            continue
        if tree is not None:
            listed = tree.get(posixpath.normpath(relative if run == "." else f"{run}/{relative}"))
            if listed is None:
                continue  # not in the listing: not there
            size = listed
        else:
            try:
                size = storage.size(path)
            except StorageError:
                continue
        out.setdefault(run, []).append(PluginFile(run, relative, size))
    return out


def read_plugin_file(index: LogdirIndex, plugin_name: str, run: str, path: str) -> bytes:
    """The bytes of a file :func:`list_plugin_files` lists; NotFoundError for any other path."""
    listed = {(run, f.path) for f in list_plugin_files(index, plugin_name, {run}).get(run, [])}
    found = read_listed(index, plugin_name, run, path, listed)
    if isinstance(found, NotFoundError):
        raise found
    return found


def read_listed(
    index: LogdirIndex, plugin_name: str, run: str, path: str, listed: set[tuple[str, str]]
) -> bytes | NotFoundError:
    """:func:`read_plugin_file` against a listing of ``(run, path)`` already made: the bytes, or
    the NotFoundError saying why not."""
    full = storage.join(index.run_dir(run), *path.split("/"))
    if (run, path) not in listed:
        if not _allowed(index, run, full):
            return NotFoundError(f"{plugin_name} file {path!r} of run {run!r} is not read: {OUTSIDE_HINT}")
        return NotFoundError(f"no {plugin_name} file {path!r} in run {run!r}")
    if not _allowed(index, run, full):  # changed since it was listed
        return NotFoundError(f"{plugin_name} file {path!r} of run {run!r} is not read: {OUTSIDE_HINT}")
    tree = index.listed_tree()
    size = None if tree is None else tree.get(posixpath.normpath(path if run == "." else f"{run}/{path}"))
    try:
        return storage.read_bytes(full) if size is None else storage.read_sized(full, size)
    except StorageError as exc:
        error = NotFoundError(f"{plugin_name} file {path!r} of run {run!r} cannot be read: {exc}")
        error.__cause__ = exc
        return error
