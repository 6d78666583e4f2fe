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
    return _conformed(pandas().DataFrame.from_records(records, columns=columns))


def _conformed(frame: Any) -> Any:
    """``frame`` with the frames' conventions (see :func:`records_frame`)."""
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
    A tensor kind's decoder may also have ``frame_columns(values)``: the cells of one row
    per point, column by column, for all the frame's points at once (or None, and the rows
    are built point by point).

    Example:
        >>> from tbkit.plugins import registry
        >>> from tbkit.provider import InMemoryProvider
        >>> kind_frame(InMemoryProvider({}), registry.plugins()["histograms"]).columns.tolist()
        ['run', 'tag', 'step', 'wall_time', 'edges', 'counts']
    """
    from tbkit.plugins import registry

    dec = registry.decoder(plugin.name)
    columns = ["run", "tag", "step", "wall_time", *plugin.columns]
    if plugin.data_class == "blob_sequence":
        points = _blob_point_rows(provider, plugin, dec)
    else:
        series = _tensor_series(provider, plugin)
        frame = _columns_frame(series, getattr(dec, "frame_columns", None), columns)
        if frame is not None:
            return frame
        points = _tensor_point_rows(series, dec)
    records = [
        {"run": run, "tag": tag, "step": step, "wall_time": wall, **row}
        for run, tag, step, wall, rows in points
        for row in rows
    ]
    return records_frame(records, columns)


_Series = tuple[str, str, np.ndarray, np.ndarray, list[Any]]


def _tensor_series(provider: DataProvider, plugin: Plugin) -> list[_Series]:
    """``(run, tag, steps, wall_times, values)`` of each of ``plugin``'s tensor series, in frame order."""
    found = provider.read_tensor_columns(plugin.name)
    return [
        (run, tag, *found[run][tag][1:])
        for run in sorted(found, key=run_order(provider))
        for tag in sorted(found[run])
    ]


def _columns_frame(series: list[_Series], build: Callable[..., Any] | None, columns: list[str]) -> Any:
    """The frame of one row per point from ``build(values)``'s columns of cells (None when
    there is no ``build``, no point, or ``build`` declines)."""
    if build is None or any(len(s[2]) != len(s[4]) for s in series):
        return None
    values = [value for s in series for value in s[4]]
    cells = build(values) if values else None
    if cells is None or any(len(cells.get(name, ())) != len(values) for name in columns[4:]):
        return None
    lengths = [len(s[4]) for s in series]
    data: dict[str, Any] = {
        name: np.repeat(np.array([s[i] for s in series], dtype=object), lengths)
        for i, name in enumerate(("run", "tag"))
    }
    data["step"] = np.concatenate([s[2] for s in series])
    data["wall_time"] = np.concatenate([s[3] for s in series])
    for name in columns[4:]:
        data[name] = np.fromiter(cells[name], dtype=object, count=len(values))
    return _conformed(pandas().DataFrame(data, columns=columns))


def _tensor_point_rows(series: list[_Series], dec: Any) -> Iterator[tuple[str, str, int, float, list[Any]]]:
    """``(run, tag, step, wall_time, rows)`` of each point of the tensor ``series``."""
    for run, tag, steps, walls, values in series:
        for step, wall, value in zip(steps.tolist(), walls.tolist(), values, strict=True):
            yield run, tag, step, wall, dec.rows(value)


def _blob_point_rows(
    provider: DataProvider, plugin: Plugin, dec: Any
) -> Iterator[tuple[str, str, int, float, list[Any]]]:
    """``(run, tag, step, wall_time, rows)`` of each point of ``plugin``'s blob sequences, in frame order."""
    blob_rows = getattr(dec, "blob_rows", None) or (lambda blobs, labels: dec.rows(blobs))
    blob_series = provider.read_blob_columns(plugin.name)
    for run in sorted(blob_series, key=run_order(provider)):
        for tag in sorted(blob_series[run]):
            _, steps, walls, blobs, labels = blob_series[run][tag]
            for i, (step, wall) in enumerate(zip(steps.tolist(), walls.tolist(), strict=True)):
                yield run, tag, step, wall, blob_rows(blobs[i], None if labels is None else labels[i])
