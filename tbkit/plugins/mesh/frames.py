"""The meshes frame: one row per (run, mesh, step), its component series joined."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tbkit.plugins import registry
from tbkit.plugins._frames import records_frame, run_order
from tbkit.provider import DataProvider

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin

__all__ = ["meshes_frame"]

_COLUMNS = ["run", "tag", "step", "wall_time", "vertices", "faces", "colors", "config"]


def meshes_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """run, tag (the mesh's name), step, wall_time, vertices, faces, colors (arrays or None), config.

    ``plugin``'s decoder joins each mesh's component series (its ``join(parts)``), read
    from the provider's tensor series of ``plugin.name``.
    """
    dec = registry.decoder(plugin.name)
    columns = provider.read_tensor_columns(plugin.name)
    records: list[dict[str, Any]] = []
    for run in sorted(columns, key=run_order(provider)):
        parts = [(tag, *columns[run][tag]) for tag in sorted(columns[run])]
        records.extend({"run": run, **row} for row in dec.join(parts))
    return records_frame(records, _COLUMNS)
