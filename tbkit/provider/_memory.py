"""The in-memory DataProvider double (re-exported as :class:`tbkit.provider.InMemoryProvider`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tbkit.provider._series import SeriesProvider
from tbkit.provider._types import DataClass, Keep, Run, Series

__all__ = ["InMemoryProvider", "set_kind_defaults"]

# What a spec that names no data class (or no plugin) gets. The provider names no kind:
# the plugin registry installs its lookup here when it is imported (set_kind_defaults).
_data_class_of: Callable[[str], str | None] = lambda plugin: None  # noqa: E731
_default_plugin = ""


def set_kind_defaults(data_class_of: Callable[[str], str | None], default_plugin: str) -> None:
    """Install how :class:`InMemoryProvider` fills what a spec leaves out.

    ``data_class_of(plugin)`` is the plugin's data class value (``"scalar"``, ``"tensor"``,
    ``"blob_sequence"``, or None when unknown: TENSOR); ``default_plugin`` the plugin of a
    spec without one. :mod:`tbkit.plugins.registry` installs its own on import, so the
    provider never imports a kind.

    Example:
        >>> set_kind_defaults(lambda plugin: "scalar" if plugin == "s" else None, "s")
        >>> InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 1.0)]}}}).list_plugins()
        ['s']
        >>> from tbkit.plugins import registry
        >>> registry.install_provider_defaults()
    """
    global _data_class_of, _default_plugin
    _data_class_of, _default_plugin = data_class_of, default_plugin


class InMemoryProvider(SeriesProvider):
    """A provider over a dict, for tests: ``{run: {tag: spec}}``.

    Each ``spec`` is a dict with ``points`` (a list of ``(step, wall_time, value)``),
    ``plugin`` (default: the scalar kind's plugin name, see :func:`set_kind_defaults`) and
    optionally ``data_class`` (a :class:`DataClass` or its value; by default the one the
    plugin registers, TENSOR for an unknown plugin), ``content`` (bytes), ``display_name``,
    ``description``.
    Blob-sequence values are sequences of ``bytes``. ``start_times`` maps runs to times.
    """

    def __init__(
        self,
        data: Mapping[str, Mapping[str, Mapping[str, Any]]],
        *,
        start_times: Mapping[str, float] | None = None,
    ) -> None:
        self._start_times = dict(start_times or {})
        self._series: list[Series] = []
        for run in sorted(data):
            for tag in sorted(data[run]):
                spec = data[run][tag]
                plugin = spec.get("plugin", _default_plugin)
                points = list(spec.get("points", []))
                data_class = DataClass(spec.get("data_class") or _data_class_of(plugin) or DataClass.TENSOR)
                steps = np.array([p[0] for p in points], dtype=np.int64)
                walls = np.array([p[1] for p in points], dtype=np.float64)
                texts = (
                    bytes(spec.get("content", b"")),
                    spec.get("display_name", ""),
                    spec.get("description", ""),
                )
                values = [p[2] for p in points]
                self._series.append(Series(run, tag, plugin, data_class, steps, walls, values, *texts))
        self._runs = sorted({s.run for s in self._series} | set(self._start_times))

    def data_location(self) -> str:
        return "memory"

    def list_runs(self) -> list[Run]:
        return [Run(r, r, self._start_times.get(r)) for r in self._runs]

    def series(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[Series]:
        return [
            s
            for s in self._series
            if (data_class is None or s.data_class is data_class)
            and (plugin_name is None or s.plugin_name == plugin_name)
            and (keep is None or keep(s.run, s.tag))
        ]
