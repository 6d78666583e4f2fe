"""Which plugins exist and where their read sides live.

Core code never imports a plugin by name: it asks this registry. Built-in plugins are
listed as dotted module names (imported on first use); third-party plugins register a
module of the same shape under the ``tbkit.plugins`` entry-point group, named by the
plugin name they own.

A decoder module provides ``PLUGIN_NAME``, ``DATA_CLASS`` (``"scalar"``, ``"tensor"``
or ``"blob_sequence"``, used when a file's metadata leaves the data class unknown),
``LEGACY_FIELD`` (the TF1 ``Summary.Value`` field it migrates, or None), and functions
``supported(content) -> bool`` (False for payloads newer than it knows), ``decode(array)``
(modern tensor to the stored value), optionally ``migrate(value)`` (legacy value to the
modern tensor), ``blobs(stored)`` (blob-sequence kinds), ``rows(stored)`` (frames) and
``check(content) -> str | None`` (why a series' payload cannot be fully read: recorded as
a problem naming the file) and ``empty_value()`` (the value of a summary that carries only
metadata, as torch writes hparams). File-based plugins (``projector``, ``profile``) set
``FILE_BASED = True`` and read their files through :mod:`tbkit.record.storage`.

The serve side is listed the same way: :data:`ROUTES` names the built-in route modules
(imported only by the server) and the ``tbkit.plugin_routes`` entry-point group adds
third-party ones. A route module provides ``blueprint`` (a Flask blueprint, mounted
under ``/data/plugin/<name>/``) and ``TABS`` (the dashboards it serves, see
:mod:`tbkit.plugins.web`); its ``static/`` directory holds the dashboard's files.

Example:
    >>> decoder("scalars").DATA_CLASS
    'scalar'
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
import warnings
from types import ModuleType
from typing import Any

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "ROUTES",
    "ROUTES_ENTRY_POINT_GROUP",
    "decoder",
    "legacy_decoder",
    "plugin_names",
    "route_modules",
]

ENTRY_POINT_GROUP = "tbkit.plugins"
ROUTES_ENTRY_POINT_GROUP = "tbkit.plugin_routes"

BUILTIN: dict[str, str] = {
    "audio": "tbkit.plugins.audio.decode",
    "custom_scalars": "tbkit.plugins.custom_scalars.decode",
    "graph_keras_model": "tbkit.plugins.graphs.decode_keras",
    "graphs": "tbkit.plugins.graphs.decode",
    "histograms": "tbkit.plugins.histograms.decode",
    "hparams": "tbkit.plugins.hparams.decode",
    "images": "tbkit.plugins.images.decode",
    "mesh": "tbkit.plugins.mesh.decode",
    "pr_curves": "tbkit.plugins.pr_curves.decode",
    "profile": "tbkit.plugins.profile.decode",
    "projector": "tbkit.plugins.projector.decode",
    "scalars": "tbkit.plugins.scalars.decode",
    "tensor": "tbkit.plugins.tensors.decode",
    "text": "tbkit.plugins.text.decode",
}

# Serve side, in tab order: dashboard route modules (imported by the server only).
ROUTES: dict[str, str] = {
    "timeseries": "tbkit.plugins.timeseries.routes",
    "scalars": "tbkit.plugins.scalars.routes",
    "histograms": "tbkit.plugins.histograms.routes",
    "images": "tbkit.plugins.images.routes",
    "audio": "tbkit.plugins.audio.routes",
    "text": "tbkit.plugins.text.routes",
    "hparams": "tbkit.plugins.hparams.routes",
    "custom_scalars": "tbkit.plugins.custom_scalars.routes",
    "pr_curves": "tbkit.plugins.pr_curves.routes",
    "graphs": "tbkit.plugins.graphs.routes",
    "projector": "tbkit.plugins.projector.routes",
    "mesh": "tbkit.plugins.mesh.routes",
    "profile": "tbkit.plugins.profile.routes",
}

_lock = threading.Lock()
_loaded: dict[str, ModuleType | Any | None] = {}
_entry_points: dict[str, Any] | None = None
_legacy: dict[str, str] | None = None


def _third_party() -> dict[str, Any]:
    global _entry_points
    if _entry_points is None:
        from importlib.metadata import entry_points

        _entry_points = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return _entry_points


def plugin_names() -> list[str]:
    """Every plugin with a known decoder: built-in and registered through entry points."""
    return sorted(set(BUILTIN) | set(_third_party()))


def decoder(plugin_name: str) -> Any | None:
    """The decoder module of ``plugin_name``, or None when no plugin reads it.

    A third-party plugin that fails to import is treated as absent (None).
    """
    with _lock:
        if plugin_name in _loaded:
            return _loaded[plugin_name]
    found: Any | None = None
    if plugin_name in BUILTIN:
        found = importlib.import_module(BUILTIN[plugin_name])
    else:
        ep = _third_party().get(plugin_name)
        if ep is not None:
            try:
                found = ep.load()
            except Exception:  # a broken third-party plugin must not break reading
                found = None
    with _lock:
        _loaded[plugin_name] = found
    return found


def legacy_decoder(field: str) -> Any | None:
    """The decoder that migrates the legacy ``Summary.Value`` field ``field`` (e.g. ``"histo"``)."""
    global _legacy
    if _legacy is None:
        table = {}
        for name in BUILTIN:
            module = decoder(name)
            if module is not None and getattr(module, "LEGACY_FIELD", None):
                table[module.LEGACY_FIELD] = name
        _legacy = table
    name = _legacy.get(field)
    return decoder(name) if name else None


def route_modules() -> dict[str, ModuleType | Any]:
    """``{name: route module}``: the built-in ones in tab order, then third-party ones by name.

    A built-in plugin whose package has no ``routes`` module has no dashboard and is left
    out; a third-party route module that fails to import is left out with a warning.
    """
    from importlib.metadata import entry_points

    out: dict[str, ModuleType | Any] = {
        name: importlib.import_module(path)
        for name, path in ROUTES.items()
        if importlib.util.find_spec(path) is not None
    }
    for ep in sorted(entry_points(group=ROUTES_ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name in out:
            continue
        try:
            out[ep.name] = ep.load()
        except Exception as exc:  # a broken third-party plugin must not break serving
            message = f"tbkit: plugin routes {ep.name!r} failed to load: {exc}"
            warnings.warn(message, RuntimeWarning, stacklevel=2)
    return out
