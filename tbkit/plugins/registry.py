"""Which plugins exist and where their parts live: one table, one entry-point group.

Core code never imports a plugin by name: it asks this registry. :data:`BUILTIN` lists the
built-in kind packages as dotted names, in tab order; each package's ``__init__.py``
declares ``PLUGINS``, a tuple of :class:`~tbkit.plugins.spec.Plugin` (a light import: the
spec names the kind's modules, importing none of them). Third-party plugins register under
the ``tbkit.plugins`` entry-point group; an entry loads a :class:`Plugin`, or a module with
``PLUGINS``. A built-in plugin wins over a third-party one of the same name.

Compatibility with the older contract:

* an entry point that loads an old-style decoder module (one with ``PLUGIN_NAME``) is
  wrapped into a :class:`Plugin` named by the entry point, with that module as its decoder
  and its ``DATA_CLASS``, ``LEGACY_FIELD`` and ``FILE_BASED`` as the spec's fields;
* the ``tbkit.plugin_routes`` group (route modules by plugin name) is still read by
  :func:`route_modules`, with a :class:`DeprecationWarning`: declare ``routes`` on the
  :class:`Plugin` instead.

A decoder module provides ``PLUGIN_NAME``, ``DATA_CLASS``, ``LEGACY_FIELD`` and functions
``supported(content) -> bool`` (False for payloads newer than it knows), ``decode(array)``
(modern tensor to the stored value), optionally ``migrate(value)`` (legacy value to the
modern tensor), ``blobs(stored)`` (blob-sequence kinds), ``rows(stored)`` (frames),
``check(content) -> str | None`` (why a series' payload cannot be fully read: recorded as
a problem naming the file) and ``empty_value()`` (the value of a summary that carries only
metadata, as torch writes hparams). File-based plugins read their files through
:mod:`tbkit.record.storage`; their decoder lists them with ``plugin_files(logdir, runs,
run_dir, wants_run) -> [(run, relative path)]`` and may name the run a directory without
event files makes with ``run_of(directory, files) -> str | None`` (run discovery asks).

The reader gets each decoder through :func:`decoder` and :func:`legacy_decoder`, which hand
back the module behind a :class:`GuardedDecoder`: its ``decode``, ``migrate``, ``check`` and
``empty_value`` raise only ``ValueError`` (``tbkit.errors`` ones, and anything else a decoder
raises on a hostile record, ``RecursionError`` and ``MemoryError`` included, turned into a
``ValueError`` naming the plugin), which the reader records as a problem for that record;
``supported`` answers False when it fails. One bad record never escapes from a frame method
or a reload. Every other attribute is the module's own.

A route module provides ``blueprint`` (a Flask blueprint, mounted under
``/data/plugin/<name>/``) and ``TABS`` (the dashboards it serves, see
:mod:`tbkit.plugins.web`); its ``static/`` directory holds the dashboard's files. Route
modules are imported only by the server, through :func:`route_modules`.

Example:
    >>> decoder("scalars").DATA_CLASS
    'scalar'
    >>> plugins()["images"].legacy_field
    'image'
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tbkit.plugins.declared import may_declare
from tbkit.plugins.guarded import GuardedDecoder
from tbkit.plugins.spec import Plugin
from tbkit.provider import set_kind_defaults

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "ROUTES_ENTRY_POINT_GROUP",
    "GuardedDecoder",
    "Plugin",
    "data_class_of",
    "decoder",
    "dedicated_frame_plugins",
    "event_field_plugin",
    "file_based_plugins",
    "frame_builder",
    "frame_plugins",
    "install_provider_defaults",
    "legacy_decoder",
    "plugin_names",
    "plugins",
    "route_modules",
]

ENTRY_POINT_GROUP = "tbkit.plugins"
ROUTES_ENTRY_POINT_GROUP = "tbkit.plugin_routes"  # deprecated: Plugin.routes

# The built-in kind packages, in tab order; each declares PLUGINS in its __init__.py.
BUILTIN: tuple[str, ...] = (
    "tbkit.plugins.timeseries",
    "tbkit.plugins.scalars",
    "tbkit.plugins.histograms",
    "tbkit.plugins.images",
    "tbkit.plugins.audio",
    "tbkit.plugins.text",
    "tbkit.plugins.hparams",
    "tbkit.plugins.custom_scalars",
    "tbkit.plugins.pr_curves",
    "tbkit.plugins.graphs",
    "tbkit.plugins.projector",
    "tbkit.plugins.mesh",
    "tbkit.plugins.profile",
    "tbkit.plugins.tensors",
)

_lock = threading.RLock()
_table: dict[str, Plugin] | None = None
_builtin_names: frozenset[str] = frozenset()
_decoders: dict[str, ModuleType | Any | None] = {}
_legacy: dict[str, str] | None = None  # legacy Summary.Value field -> plugin name


def _declared(obj: Any, entry_name: str | None = None) -> list[Plugin]:
    """The plugins ``obj`` stands for: a Plugin, a module with ``PLUGINS``, or an old decoder."""
    if isinstance(obj, Plugin):
        return [obj]
    declared = getattr(obj, "PLUGINS", None)
    if declared is not None:
        return [p for p in declared if isinstance(p, Plugin)]
    if entry_name is not None and hasattr(obj, "PLUGIN_NAME"):  # an old-style decoder module
        data_class = getattr(obj, "DATA_CLASS", None)
        wrapped = Plugin(
            entry_name,
            data_class if data_class in ("scalar", "tensor", "blob_sequence") else "tensor",
            decoder=obj.__name__,
            legacy_field=getattr(obj, "LEGACY_FIELD", None),
            file_based=bool(getattr(obj, "FILE_BASED", False)),
        )
        _decoders.setdefault(entry_name, GuardedDecoder(entry_name, obj))
        return [wrapped]
    return []


def _entry_points(group: str) -> list[Any]:
    if not may_declare([group]):  # the usual case, told in 2 ms instead of importlib's 10-15
        return []
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda e: e.name)


def _build() -> dict[str, Plugin]:
    global _builtin_names
    table: dict[str, Plugin] = {}
    for package in BUILTIN:
        for plugin in _declared(importlib.import_module(package)):
            table.setdefault(plugin.name, plugin)
    _builtin_names = frozenset(table)
    for ep in _entry_points(ENTRY_POINT_GROUP):
        if ep.name in _builtin_names:
            continue
        try:
            found = _declared(ep.load(), ep.name)
        except Exception:  # a broken third-party plugin must not break reading
            continue
        for plugin in found:
            table.setdefault(plugin.name, plugin)
    return table


def plugins() -> dict[str, Plugin]:
    """Every plugin by name: the built-in ones in tab order, then third-party ones by entry name.

    A third-party plugin that fails to load is left out.

    Example:
        >>> list(plugins())[:3]
        ['timeseries', 'scalars', 'histograms']
    """
    global _table
    with _lock:
        if _table is None:
            _table = _build()
        return dict(_table)


def _reset() -> None:
    """Forget the table and the loaded decoders (tests that fake entry points call this)."""
    global _table, _legacy
    with _lock:
        _table = _legacy = None
        _decoders.clear()


def plugin_names() -> list[str]:
    """Every plugin with a known decoder: built-in and registered through entry points."""
    return sorted(name for name, p in plugins().items() if p.decoder is not None)


_UNKNOWN = object()  # not looked up yet


def decoder(plugin_name: str) -> Any | None:
    """The decoder module of ``plugin_name`` (as a :class:`GuardedDecoder`), or None when no
    plugin reads it.

    A third-party decoder that fails to import is treated as absent (None).
    """
    found = _decoders.get(plugin_name, _UNKNOWN)  # one dict read: the reader asks per series and point
    if found is not _UNKNOWN:
        return found
    spec = plugins().get(plugin_name)
    found = None
    if spec is not None and spec.decoder is not None:
        if plugin_name in _builtin_names:
            found = importlib.import_module(spec.decoder)
        else:
            try:
                found = importlib.import_module(spec.decoder)
            except Exception:  # a broken third-party plugin must not break reading
                found = None
    guarded = None if found is None else GuardedDecoder(plugin_name, found)
    with _lock:
        _decoders.setdefault(plugin_name, guarded)
        return _decoders[plugin_name]


def legacy_decoder(field: str) -> Any | None:
    """The decoder that migrates the legacy ``Summary.Value`` field ``field`` (e.g. ``"histo"``)."""
    global _legacy
    table = _legacy
    if table is None:  # built once: the reader asks for every legacy value it reads
        table = {}
        for plugin_name, spec in plugins().items():
            if spec.legacy_field is not None:
                table.setdefault(spec.legacy_field, plugin_name)
        _legacy = table
    owner = table.get(field)
    return decoder(owner) if owner is not None else None


def data_class_of(plugin_name: str) -> str | None:
    """The data class of ``plugin_name``'s series when a file leaves it unknown (None: unknown plugin)."""
    spec = plugins().get(plugin_name)
    return None if spec is None else spec.data_class


def event_field_plugin(field: str) -> str | None:
    """The plugin that keeps the ``Event`` field ``field`` (e.g. ``"graph_def"``) as a blob series."""
    for name, spec in plugins().items():
        if spec.event_field == field:
            return name
    return None


def file_based_plugins() -> tuple[str, ...]:
    """The plugins that read plain files of the run directory (``list_plugin_files``), not series."""
    return tuple(name for name, p in plugins().items() if p.file_based)


def dedicated_frame_plugins() -> tuple[str, ...]:
    """The plugins with a frame of their own (``Logdir.tensors()`` leaves them out)."""
    return tuple(name for name, p in plugins().items() if p.dedicated_frame)


def frame_plugins() -> dict[str, Plugin]:
    """``{frame kind: plugin}`` of every frame a plugin declares in ``Plugin.frames``.

    Built-in plugins first (in tab order), then third-party ones; the first plugin to
    declare a frame kind keeps it.

    Example:
        >>> "scalars" in frame_plugins()  # the built-in frames are Logdir's own methods
        False
    """
    out: dict[str, Plugin] = {}
    for spec in plugins().values():
        for kind in spec.frames:
            out.setdefault(kind, spec)
    return out


def frame_builder(kind: str) -> tuple[Plugin, Callable[..., Any]] | None:
    """The plugin declaring the frame ``kind`` and its builder function, or None when none does.

    The builder is ``Plugin.frames[kind]`` (``"module:function"``) imported now; it is called
    as ``builder(provider, plugin)`` (see :class:`~tbkit.plugins.spec.Plugin`). A builder
    that fails to import raises (the caller asked for that frame by name).
    """
    spec = frame_plugins().get(kind)
    if spec is None:
        return None
    module_name, _, function = spec.frames[kind].partition(":")
    builder = getattr(importlib.import_module(module_name), function)
    if not callable(builder):
        raise TypeError(f"plugin {spec.name!r}: frame {kind!r} names {spec.frames[kind]!r}, not a function")
    return spec, builder


def route_modules() -> dict[str, ModuleType | Any]:
    """``{name: route module}``: the built-in ones in tab order, then third-party ones by name.

    A plugin without ``routes`` has no dashboard and is left out; a third-party route
    module that fails to import is left out with a warning. Route modules registered under
    the deprecated ``tbkit.plugin_routes`` group come last, with a DeprecationWarning.
    """
    out: dict[str, ModuleType | Any] = {}
    for name, spec in plugins().items():
        if spec.routes is None:
            continue
        if name in _builtin_names:
            out[name] = importlib.import_module(spec.routes)
            continue
        try:
            out[name] = importlib.import_module(spec.routes)
        except Exception as exc:  # a broken third-party plugin must not break serving
            message = f"tbkit: plugin routes {name!r} failed to load: {exc}"
            warnings.warn(message, RuntimeWarning, stacklevel=2)
    for ep in _entry_points(ROUTES_ENTRY_POINT_GROUP):
        if ep.name in out:
            continue
        message = (
            f"tbkit: plugin routes {ep.name!r} come from the deprecated {ROUTES_ENTRY_POINT_GROUP!r} "
            f"entry-point group; declare routes= on the Plugin registered under {ENTRY_POINT_GROUP!r}"
        )
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        try:
            out[ep.name] = ep.load()
        except Exception as exc:  # a broken third-party plugin must not break serving
            message = f"tbkit: plugin routes {ep.name!r} failed to load: {exc}"
            warnings.warn(message, RuntimeWarning, stacklevel=2)
    return out


def install_provider_defaults() -> None:
    """Make :class:`~tbkit.provider.InMemoryProvider` fill specs from this registry (done on import).

    A spec without ``plugin`` is a ``scalars`` series; one without ``data_class`` gets its
    plugin's registered data class.
    """
    set_kind_defaults(data_class_of, "scalars")


install_provider_defaults()
