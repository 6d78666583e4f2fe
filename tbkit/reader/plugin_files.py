"""The files of the file-based kinds (projector, profile): listed by their decoders, read for the provider.

Paths are relative to a run's directory; only what a kind's decoder lists (its
``plugin_files``) can be read, so a request never reaches another file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tbkit.errors import NotFoundError, StorageError
from tbkit.plugins import registry
from tbkit.provider import PluginFile
from tbkit.record import storage

if TYPE_CHECKING:
    from tbkit.reader.index import LogdirIndex

__all__ = ["list_plugin_files", "read_listed", "read_plugin_file"]


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
    out: dict[str, list[PluginFile]] = {}
    found = lister(index.logdir, index.file_runs(), index.run_dir, index.wants_run)
    for run, relative in found:
        if runs is not None and run not in runs:
            continue
        path = storage.join(index.run_dir(run), *relative.split("/"))
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
    if (run, path) not in listed:
        return NotFoundError(f"no {plugin_name} file {path!r} in run {run!r}")
    try:
        return storage.read_bytes(storage.join(index.run_dir(run), *path.split("/")))
    except StorageError as exc:
        error = NotFoundError(f"{plugin_name} file {path!r} of run {run!r} cannot be read: {exc}")
        error.__cause__ = exc
        return error
