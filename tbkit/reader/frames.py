"""pandas frames over a :class:`~tbkit.reader.index.LogdirIndex` (pandas imported lazily).

Long format throughout: categorical ``run`` and ``tag``, int64 ``step``, float64
``wall_time``, then the kind's own columns, rows ordered by run, tag, then as written.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit._memory import release_free_memory
from tbkit.errors import InvalidArgumentError, MissingDependencyError
from tbkit.plugins import registry
from tbkit.plugins._frames import pandas as _pd
from tbkit.plugins._frames import records_frame as _frame
from tbkit.reader.index import LogdirIndex
from tbkit.reader.series import SeriesData

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "export_frame",
    "handed_out",
    "problems_frame",
    "runs_frame",
    "scalars_frame",
    "tags_frame",
    "tensors_frame",
]


def _categorical(names: list[str], codes: np.ndarray) -> Any:
    pd = _pd()
    return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype=object))


def _code_dtype(names: list[str]) -> type[np.signedinteger[Any]]:
    """The smallest integer type pandas keeps for the codes of ``names`` (no copy later)."""
    if len(names) < 127:
        return np.int8
    return np.int16 if len(names) < 32767 else np.int32


def _selected(
    index: LogdirIndex, keep: Any, *, scalars_only: bool = False
) -> list[tuple[str, str, SeriesData]]:
    return [
        (run.name, tag, series)
        for run in index.runs(scalars_only=scalars_only)
        for tag, series in sorted(run.series.items())  # tags differ: series are never compared
        if not series.refused and len(series) and keep(series)
    ]


def _rebase(
    batch: list[SeriesData],
    parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]],
    columns: tuple[np.ndarray, np.ndarray, np.ndarray],
    start: int,
    end: int,
) -> None:
    """Copy the blocks in ``parts`` (those of the series of ``batch``, in order) into rows
    ``start:end`` of ``columns`` and make each series' points views of its rows (which frees
    its blocks); ``batch`` and ``parts`` are emptied."""
    for part, column in zip(parts, columns, strict=True):
        if part:
            np.concatenate(part, out=column[start:end], casting="unsafe")
        part.clear()
    steps, walls, values = columns
    pos = start
    for series in batch:
        n = len(series)
        series.rebase(steps[pos : pos + n], walls[pos : pos + n], values[pos : pos + n])
        pos += n
    batch.clear()


def scalars_frame(index: LogdirIndex, *, pivot: bool = False) -> pd.DataFrame:
    """Every scalar point: run, tag, step, wall_time, value (float64).

    The columns are built once in NumPy; afterwards the index's series are views into
    them, so the frame and the index share one copy of the data.
    """
    pd = _pd()
    with index._lock:
        chosen = _selected(index, SeriesData.is_scalar.fget, scalars_only=True)  # type: ignore[attr-defined]
        sizes = np.array([len(s) for _, _, s in chosen], dtype=np.int64)
        total = int(sizes.sum())
        steps = np.empty(total, dtype=np.int64)
        walls = np.empty(total, dtype=np.float64)
        values = np.empty(total, dtype=np.float64)
        parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
        add_steps, add_walls, add_values = (part.append for part in parts)
        batch: list[SeriesData] = []
        pos = start = trimmed = 0
        for _, _, series in chosen:  # copied by batches of about 64k points, one call a column
            batch.append(series)
            for s, w, v in series.blocks():
                add_steps(s)
                add_walls(w)
                add_values(v)
            pos += len(series)
            if pos - start > 1 << 16:  # small batches: blocks are freed soon after they are copied
                _rebase(batch, parts, (steps, walls, values), start, pos)
                start = pos
            if pos - trimmed > 1 << 20:  # hand the freed blocks back as we go: one copy at a time
                release_free_memory()
                trimmed = pos
        _rebase(batch, parts, (steps, walls, values), start, pos)
        release_free_memory()
    runs = sorted({r for r, _, _ in chosen})
    tags = sorted({t for _, t, _ in chosen})
    run_lookup = {r: i for i, r in enumerate(runs)}
    run_codes = np.repeat(np.array([run_lookup[r] for r, _, _ in chosen], dtype=_code_dtype(runs)), sizes)
    tag_lookup = {t: i for i, t in enumerate(tags)}
    tag_codes = np.repeat(np.array([tag_lookup[t] for _, t, _ in chosen], dtype=_code_dtype(tags)), sizes)
    frame = pd.DataFrame(
        {
            "run": _categorical(runs, run_codes),
            "tag": _categorical(tags, tag_codes),
            "step": steps,
            "wall_time": walls,
            "value": values,
        },
        copy=False,
    )
    if not pivot:
        return frame
    wide = frame.drop_duplicates(["run", "tag", "step"], keep="last").pivot(
        index=["run", "step"], columns="tag", values="value"
    )
    wide.columns = list(wide.columns)
    return wide.reset_index()


def tensors_frame(index: LogdirIndex, plugin: str | None = None) -> pd.DataFrame:
    """Series of ``plugin`` (default: every non-scalar series without a dedicated method) as arrays."""
    if plugin is None:
        dedicated = set(registry.dedicated_frame_plugins())
        keep = lambda s: not s.is_scalar and s.meta.plugin_name not in dedicated  # noqa: E731
    else:
        keep = lambda s: s.meta.plugin_name == plugin  # noqa: E731
    with index._lock:
        records = []
        for run, tag, series in _selected(index, keep):
            steps, walls, values = series.columns()
            for step, wall, stored in zip(steps.tolist(), walls.tolist(), values, strict=True):
                value = np.asarray(stored) if not series.is_scalar else np.float64(stored)
                records.append({"run": run, "tag": tag, "plugin": series.meta.plugin_name, "step": step,
                                "wall_time": wall, "value": value})  # fmt: skip
    return _frame(records, ["run", "tag", "plugin", "step", "wall_time", "value"])


def runs_frame(index: LogdirIndex) -> pd.DataFrame:
    """One row per run: run, start_time, event_files (paths), problems (count)."""
    files = index.files()
    pending = {p.path for p in index.problems() if p.reason.startswith("incomplete")}
    records = [
        {"run": run.name, "start_time": run.start_time, "event_files": list(files.get(run.name, [])),
         "problems": len(run.problems) + sum(path in pending for path in files.get(run.name, []))}
        for run in index.runs()
    ]  # fmt: skip
    frame = _frame(records, ["run", "start_time", "event_files", "problems"])
    frame["start_time"] = frame["start_time"].astype(np.float64)
    return frame


def tags_frame(index: LogdirIndex) -> pd.DataFrame:
    """One row per series: plugin, data class, count, first/last (min/max) step and texts."""
    records = []
    with index._lock:
        for run, tag, series in _selected(index, lambda s: True):
            steps = series.columns()[0]
            meta = series.meta
            record = {"run": run, "tag": tag, "plugin": meta.plugin_name, "data_class": meta.data_class.value}
            record.update(count=len(steps), first_step=int(steps.min()), last_step=int(steps.max()))
            record.update(display_name=meta.display_name, description=meta.description)
            records.append(record)
    columns = ["run", "tag", "plugin", "data_class", "count", "first_step", "last_step", "display_name"]
    frame = _frame(records, [*columns, "description"])
    for name in ("count", "first_step", "last_step"):
        frame[name] = frame[name].astype(np.int64)
    return frame


def problems_frame(index: LogdirIndex) -> pd.DataFrame:
    """Every problem: run, path, offset (nullable Int64), reason."""
    records = [
        {"run": p.run, "path": p.path, "offset": p.offset, "reason": p.reason} for p in index.problems()
    ]
    frame = _frame(records, ["run", "path", "offset", "reason"])
    frame["offset"] = frame["offset"].astype("Int64")
    return frame


def _cell_to_text(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, np.ndarray):
        return json.dumps(
            value.tolist() if value.dtype != object else [_cell_to_text(v) for v in value.tolist()]
        )
    return value


def export_frame(frame: pd.DataFrame, path: str, fmt: str, **kwargs: Any) -> None:
    """Write ``frame`` as Parquet (arrays become lists) or CSV (arrays JSON, bytes base64)."""
    out = frame.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype != object:
            continue
        if fmt == "csv":
            out[name] = column.map(_cell_to_text)
        elif column.map(lambda v: isinstance(v, np.ndarray)).any():
            out[name] = column.map(lambda v: v.tolist() if isinstance(v, np.ndarray) else v)
    if fmt == "parquet":
        try:
            out.to_parquet(path, index=False, **kwargs)
        except ImportError as exc:
            raise MissingDependencyError("pyarrow", feature="Parquet export") from exc
    elif fmt == "csv":
        out.to_csv(path, index=False, **kwargs)
    else:
        raise InvalidArgumentError(f"unknown export format {fmt!r}: use 'parquet' or 'csv'")


def handed_out(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a cached ``frame`` for the caller to change freely: shallow where pandas
    copies on write (pandas 3, or the option set), else deep."""
    pd = _pd()
    cow = int(pd.__version__.split(".")[0]) >= 3 or pd.options.mode.copy_on_write is True
    return frame.copy(deep=not cow)
