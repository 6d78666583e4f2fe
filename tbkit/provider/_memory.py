"""The in-memory DataProvider double (re-exported as :class:`tbkit.provider.InMemoryProvider`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tbkit.provider._series import SeriesProvider
from tbkit.provider._types import DataClass, Keep, Run, Series

__all__ = ["InMemoryProvider"]

# TODO(plugin spec): kinds named in core code; take each kind's default data class from the
# plugin registry once the plugin spec lands (issue 12).
_DEFAULT_CLASS = {
    "scalars": DataClass.SCALAR,
    "images": DataClass.BLOB_SEQUENCE,
    "audio": DataClass.BLOB_SEQUENCE,
}


class InMemoryProvider(SeriesProvider):
    """A provider over a dict, for tests: ``{run: {tag: spec}}``.

    Each ``spec`` is a dict with ``points`` (a list of ``(step, wall_time, value)``),
    ``plugin`` (default ``"scalars"``) and optionally ``data_class`` (a :class:`DataClass`
    or its value; by default SCALAR for ``scalars``, BLOB_SEQUENCE for ``images`` and
    ``audio``, TENSOR otherwise), ``content`` (bytes), ``display_name``, ``description``.
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
                plugin = spec.get("plugin", "scalars")
                points = list(spec.get("points", []))
                data_class = DataClass(spec.get("data_class", _DEFAULT_CLASS.get(plugin, DataClass.TENSOR)))
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
