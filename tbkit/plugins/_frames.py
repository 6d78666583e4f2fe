"""Pandas helpers shared by the kinds' frame builders (``plugins/<kind>/frames.py``), and the
generic kind frame (:func:`kind_frame`) most kinds declare as theirs.

pandas is imported when a frame is built, never when a kind's ``__init__`` is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.errors import MissingDependencyError
from tbkit.record import storage

if TYPE_CHECKING:
    from tbkit.plugins.spec import Plugin
    from tbkit.provider import DataProvider

__all__ = ["kind_frame", "pandas", "records_frame", "run_order", "run_path"]


def pandas() -> Any:
    """The pandas module (MissingDependencyError naming the frames when it is absent)."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is a dependency
        raise MissingDependencyError("pandas", feature="tbkit.read frames") from exc
    return pandas


def records_frame(records: list[dict[str, Any]], columns: list[str]) -> Any:
    """A frame of ``records`` with ``columns``: ``run``, ``tag`` and ``plugin`` categorical,
    ``step`` int64 (nullable Int64 when a record has none), ``wall_time`` float64 (the
    frames' conventions, as the reader's own)."""
    pd = pandas()
    frame = pd.DataFrame.from_records(records, columns=columns)
    for name in ("run", "tag", "plugin"):
        if name in frame:
            frame[name] = frame[name].astype("category")
    for name, dtype in (("step", np.int64), ("wall_time", np.float64)):
        if name in frame:
            missing = frame[name].isna().any() and dtype is np.int64  # a frame with a nullable step
            frame[name] = frame[name].astype("Int64" if missing else dtype)
    return frame


def run_order(provider: DataProvider) -> Callable[[str], int]:
    """A sort key putting runs in the provider's order (``list_runs``; unknown runs last)."""
    order = {r.run_name: i for i, r in enumerate(provider.list_runs())}
    return lambda run: order.get(run, len(order))


def run_path(provider: DataProvider, run: str, relative: str) -> str:
    """The path of ``relative`` (``/``-separated) in ``run``'s directory below the provider's logdir."""
    logdir = provider.data_location()
    run_dir = logdir if run == "." else storage.join(logdir, *run.split("/"))
    return storage.join(run_dir, *relative.split("/"))


def kind_frame(provider: DataProvider, plugin: Plugin) -> Any:
    """The generic frame of a kind: ``run, tag, step, wall_time`` then ``plugin.columns``.

    One row per item its decoder finds in a point: ``rows(value)`` of each tensor point
    (``plugin.data_class`` ``"tensor"``), or ``blob_rows(blobs, labels)`` of each blob
    sequence point (``"blob_sequence"``; a decoder without ``blob_rows`` gets
    ``rows(blobs)``). Rows come by run (the provider's order), then tag, then as written.

    Example:
        >>> from tbkit.plugins import registry
        >>> from tbkit.provider import InMemoryProvider
        >>> kind_frame(InMemoryProvider({}), registry.plugins()["histograms"]).columns.tolist()
        ['run', 'tag', 'step', 'wall_time', 'edges', 'counts']
    """
    records = [
        {"run": run, "tag": tag, "step": step, "wall_time": wall, **row}
        for run, tag, step, wall, rows in _point_rows(provider, plugin)
        for row in rows
    ]
    return records_frame(records, ["run", "tag", "step", "wall_time", *plugin.columns])


def _point_rows(provider: DataProvider, plugin: Plugin) -> Iterator[tuple[str, str, int, float, list[Any]]]:
    """``(run, tag, step, wall_time, rows)`` of each point of ``plugin``'s series, in frame order."""
    from tbkit.plugins import registry

    dec = registry.decoder(plugin.name)
    if plugin.data_class == "blob_sequence":
        blob_rows = getattr(dec, "blob_rows", None) or (lambda blobs, labels: dec.rows(blobs))
        blob_series = provider.read_blob_columns(plugin.name)
        for run in sorted(blob_series, key=run_order(provider)):
            for tag in sorted(blob_series[run]):
                _, steps, walls, blobs, labels = blob_series[run][tag]
                for i, (step, wall) in enumerate(zip(steps.tolist(), walls.tolist(), strict=True)):
                    yield run, tag, step, wall, blob_rows(blobs[i], None if labels is None else labels[i])
        return
    tensor_series = provider.read_tensor_columns(plugin.name)
    for run in sorted(tensor_series, key=run_order(provider)):
        for tag in sorted(tensor_series[run]):
            _, steps, walls, values = tensor_series[run][tag]
            for step, wall, value in zip(steps.tolist(), walls.tolist(), values, strict=True):
                yield run, tag, step, wall, dec.rows(value)
