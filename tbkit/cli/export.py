"""``tbkit export``: every selected run × tag of a logdir, one file per kind, in one go.

Layout of the output directory ``OUT`` (see ``docs/cli.md``):

* ``OUT/<kind>.parquet`` (or ``.csv``, or ``.jsonl``: JSON Lines), one per kind with data,
  holding the frame of ``tbkit.read(logdir).<kind>()``;
* with CSV and JSON, binary cells (image, audio, sprite, graph bytes) are written as files
  ``OUT/<kind>/<run>/<tag>/<step>[_<index>].<ext>`` and the column ``<name>`` becomes
  ``<name>_file`` holding the path relative to ``OUT``; Parquet keeps them as binary columns;
* ``OUT/manifest.json``: what was exported (kinds, files, rows, columns), from where, and how
  many problems the reader met.
* with ``group_by``: ``OUT/scalar_groups.<ext>``, the scalars of run groups
  (:func:`tbkit.aggregate`: group, tag, step, wall_time, value, lower, upper, count).
* with ``partition_by`` (Parquet only, e.g. ``["run"]``): each kind whose frame has those
  columns is a Hive-partitioned dataset ``OUT/<kind>/run=<run>/part-0.parquet`` instead
  of one file (:func:`tbkit.reader.parquet_dataset.write_partitioned`), which DuckDB, Dask,
  Polars and Spark read directly (``read_parquet('OUT/scalars/**/*.parquet',
  hive_partitioning = true)``); kinds without them stay one file.

Example:
    >>> summary = export_logdir("runs", "out", fmt="parquet")  # doctest: +SKIP
    >>> summary["kinds"]["scalars"]["rows"]  # doctest: +SKIP
    1000
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tbkit._progress import Progress
from tbkit._version import __version__
from tbkit.cli._cells import normalize_cells
from tbkit.cli._common import open_logdir, quiet_reader
from tbkit.errors import InvalidArgumentError, MissingDependencyError, NotFoundError
from tbkit.plugins import registry
from tbkit.plugins.scalars.query import safe_path
from tbkit.reader.logdir import frame_kinds
from tbkit.reader.parquet_dataset import arrow_table, write_partitioned

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "KINDS", "export_logdir", "parse_kinds"]

KINDS = frame_kinds()  # every frame of tbkit.read(logdir) by name, as registered on import
FORMATS = {"parquet": "parquet", "csv": "csv", "json": "jsonl"}
CHUNK_ROWS = 1 << 20  # rows per Parquet row group / CSV or JSON block
_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF8", "gif"),
    (b"\xff\xd8\xff", "jpg"),
    (b"BM", "bmp"),
    (b"OggS", "ogg"),
    (b"fLaC", "flac"),
]


def parse_kinds(text: str | None) -> list[str]:
    """``"scalars,images"`` → ``["scalars", "images"]`` (None or ``"all"``: every kind).

    Raises:
        InvalidArgumentError: An unknown kind.
    """
    known = frame_kinds()  # asked now: plugins' frames (third-party ones too) are among them
    if text is None or text.strip() == "all":
        return list(known)
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in known]
    if unknown or not kinds:
        raise InvalidArgumentError(
            f"unknown kind(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(known)}"
        )
    return list(dict.fromkeys(kinds))


def _extension(kind: str, data: bytes, image_format: Any = None) -> str:
    if isinstance(image_format, str) and image_format.isalnum():
        return image_format.lower()
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    for magic, ext in _MAGIC:
        if data.startswith(magic):
            return ext
    if data[:1] in (b"{", b"["):
        return "json"
    spec = registry.plugins().get(kind) or registry.frame_plugins().get(kind)  # Plugin.media_extension
    return (spec.media_extension if spec is not None else None) or "bin"


class _MediaWriter:
    """Writes binary cells as files under ``OUT/<kind>/``, each name used once."""

    def __init__(self, out: str, kind: str) -> None:
        self.out = out
        self.kind = kind
        self.used: set[str] = set()
        self.count = 0

    def write(self, row: dict[str, Any], column: str, data: bytes) -> str:
        parts = [self.kind]
        for key in ("run", "tag"):
            if isinstance(row.get(key), str):
                parts.append(row[key])
        stem = str(row.get("step", "")) if row.get("step") is not None else "item"
        if row.get("index") is not None:
            stem += f"_{row['index']}"
        if column not in ("data",):
            stem += f"_{column}"
        base = safe_path(*parts, stem)
        ext = _extension(self.kind, data, row.get("format") if column == "data" else None)
        name, k = f"{base}.{ext}", 1
        while name.lower() in self.used:
            k += 1
            name = f"{base}~{k}.{ext}"
        self.used.add(name.lower())
        path = os.path.join(self.out, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        self.count += 1
        return name


def _prepare(frame: pd.DataFrame, kind: str, fmt: str, out: str) -> tuple[pd.DataFrame, int]:
    """Normalize the object columns; with CSV and JSON write binary cells as files."""
    import pandas as pd

    columns: dict[str, Any] = {}
    media = _MediaWriter(out, kind)
    object_columns = [c for c in frame.columns if frame[c].dtype == object]
    binary: dict[str, list[Any]] = {}
    for name in frame.columns:
        if name not in object_columns:
            columns[name] = frame[name]
            continue
        cells, is_binary = normalize_cells(frame[name].tolist())
        if is_binary and fmt != "parquet":
            binary[name] = cells
            columns[f"{name}_file"] = None
        else:
            columns[name] = pd.Series(cells, index=frame.index, dtype=object)
    if binary:
        keys = [k for k in ("run", "tag", "step", "index", "format") if k in frame.columns]
        rows = frame[keys].to_dict("records")
        for name, cells in binary.items():
            paths = [None if c is None else media.write(rows[i], name, c) for i, c in enumerate(cells)]
            columns[f"{name}_file"] = pd.Series(paths, index=frame.index, dtype=object)
    return pd.DataFrame(columns, copy=False), media.count


def _write_parquet(frame: pd.DataFrame, path: str, bar: Progress) -> None:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", feature="Parquet export") from exc
    table = arrow_table(frame)
    with pq.ParquetWriter(path, table.schema) as writer:
        for lo in range(0, max(len(table), 1), CHUNK_ROWS):
            writer.write_table(table.slice(lo, CHUNK_ROWS), row_group_size=CHUNK_ROWS)
            bar.update(min(len(table), lo + CHUNK_ROWS))


def _text_frame(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """CSV cells: lists as JSON text."""
    if fmt != "csv":
        return frame
    from tbkit.cli._cells import to_json_text

    out = frame.copy(deep=False)
    for name in out.columns:
        if out[name].dtype == object:
            out[name] = [to_json_text(v) if isinstance(v, list) else v for v in out[name].tolist()]
    return out


def _json_values(column: pd.Series) -> list[Any]:
    """A column's cells as JSON-ready Python values: missing and non-finite numbers as None."""
    import numpy as np

    if column.dtype.kind == "f":
        array = column.to_numpy()
        cells = array.astype(object)
        cells[~np.isfinite(array)] = None
        return cells.tolist()
    if column.dtype.kind in "iub":
        return column.tolist()
    values = column.astype(object)
    return values.where(column.notna(), None).tolist()


def _json_lines(block: pd.DataFrame) -> Iterable[str]:
    """One exact JSON object per row (floats written in full, NaN and ±inf as null)."""
    from tbkit.cli._cells import to_json_text

    names = [str(c) for c in block.columns]
    columns = [_json_values(block[c]) for c in block.columns]
    dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
    for row in zip(*columns, strict=True):
        record = dict(zip(names, row, strict=True))
        try:
            line = dumps(record)
        except (ValueError, TypeError):  # NaN inside a list, or a value json cannot encode
            line = to_json_text(record)
        yield line + "\n"


def _write_text(frame: pd.DataFrame, path: str, fmt: str, bar: Progress) -> None:
    frame = _text_frame(frame, fmt)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        if not len(frame) and fmt == "csv":
            frame.to_csv(handle, index=False)
        for lo in range(0, len(frame), CHUNK_ROWS):
            block = frame.iloc[lo : lo + CHUNK_ROWS]
            if fmt == "csv":
                block.to_csv(handle, index=False, header=lo == 0)
            else:
                handle.writelines(_json_lines(block))
            bar.update(min(len(frame), lo + CHUNK_ROWS))


def _frame(ld: Any, kind: str) -> pd.DataFrame:
    with quiet_reader():
        return ld.frame(kind)


def _export_groups(
    ld: Any,
    out: str,
    fmt: str,
    group_by: str,
    stat: str,
    band: str,
    manifest: dict[str, Any],
    progress: bool | None,
) -> int:
    """Write ``scalar_groups.<ext>`` (the rows of ``Logdir.aggregate``) and its manifest entry."""
    with quiet_reader():
        frame = ld.aggregate(group_by, stat=stat, band=band)
    if not len(frame):
        return 0
    name = f"scalar_groups.{FORMATS[fmt]}"
    with Progress(len(frame), f"writing {name}", unit="rows", enabled=progress) as bar:
        if fmt == "parquet":
            _write_parquet(frame, os.path.join(out, name), bar)
        else:
            _write_text(frame, os.path.join(out, name), fmt, bar)
    manifest["kinds"]["scalar_groups"] = {
        "file": name,
        "rows": len(frame),
        "columns": [str(c) for c in frame.columns],
        "group_by": group_by,
        "stat": stat,
        "band": band,
        "groups": sorted(set(frame["group"])),
    }
    return len(frame)


def export_logdir(
    logdir: str,
    out: str,
    *,
    fmt: str = "parquet",
    runs: str | None = None,
    tags: str | None = None,
    kinds: Iterable[str] | None = None,
    purge_orphaned_data: bool = True,
    progress: bool | None = None,
    group_by: str | None = None,
    stat: str = "mean",
    band: str = "std",
    partition_by: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Export every selected run × tag of ``logdir`` into the directory ``out``.

    Args:
        logdir: Local path or fsspec URL.
        out: The output directory (created; files of the same names are replaced).
        fmt: ``"parquet"``, ``"csv"`` or ``"json"`` (JSON Lines).
        runs: Runs where this regex matches anywhere in the name (None: all).
        tags: Tags where this regex matches anywhere in the name (None: all).
        kinds: The kinds to export (default: every kind, or none besides the groups when
            ``group_by`` is given; kinds without data write no file).
        purge_orphaned_data: As :func:`tbkit.read`.
        progress: Draw progress bars on stderr (default: when stderr is a terminal).
        group_by: Also write ``scalar_groups.<ext>``: the runs grouped by this regex (its
            first capture group names the group) or ``"hparam:NAME"``, see :func:`tbkit.aggregate`.
        stat: With ``group_by``: ``"mean"`` or ``"median"``.
        band: With ``group_by``: ``"std"`` or ``"minmax"``.
        partition_by: With Parquet: write each kind that has these columns as a
            Hive-partitioned dataset ``out/<kind>/<column>=<value>/...`` (e.g. ``["run"]``).

    Returns:
        The manifest, also written to ``out/manifest.json``.

    Raises:
        NotFoundError: No event files, or nothing of the selected kinds.
    """
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"unknown format {fmt!r}: use parquet, csv or json")
    keys = list(partition_by or [])
    if keys and fmt != "parquet":
        raise InvalidArgumentError(f"partitioning is for Parquet datasets, not {fmt}: add --format parquet")
    default = [] if group_by is not None else list(frame_kinds())  # --group-by alone: the groups only
    chosen = default if kinds is None else list(kinds)
    ld = open_logdir(logdir, runs=runs, tags=tags, purge_orphaned_data=purge_orphaned_data, progress=progress)
    os.makedirs(out, exist_ok=True)
    manifest: dict[str, Any] = {
        "tbkit_version": __version__,
        "logdir": logdir,
        "format": fmt,
        "runs": runs,
        "tags": tags,
        "kinds": {},
    }
    data_rows = 0
    for kind in chosen:
        frame = _frame(ld, kind)
        if not len(frame):
            continue
        prepared, media = _prepare(frame, kind, fmt, out)
        del frame
        partitioned = bool(keys) and all(k in prepared.columns for k in keys)
        name = f"{kind}/" if partitioned else f"{kind}.{FORMATS[fmt]}"
        with Progress(len(prepared), f"writing {name}", unit="rows", enabled=progress) as bar:
            if partitioned:
                write_partitioned(prepared, os.path.join(out, kind), keys)
                bar.update(len(prepared))
            elif fmt == "parquet":
                _write_parquet(prepared, os.path.join(out, name), bar)
            else:
                _write_text(prepared, os.path.join(out, name), fmt, bar)
        entry: dict[str, Any] = {
            "file": name,
            "rows": len(prepared),
            "columns": [str(c) for c in prepared.columns],
        }
        if partitioned:
            entry["partition_by"] = keys
        if media:
            entry["media_files"] = media
            entry["media_dir"] = kind
        manifest["kinds"][kind] = entry
        if kind not in ("runs", "tags", "problems"):
            data_rows += len(prepared)
    if group_by is not None:
        data_rows += _export_groups(ld, out, fmt, group_by, stat, band, manifest, progress)
    manifest["problems"] = len(_frame(ld, "problems"))
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    if not data_rows and (group_by is not None or any(k not in ("runs", "tags", "problems") for k in chosen)):
        raise NotFoundError(f"nothing to export: no data of kind(s) {', '.join(chosen)} matched in {logdir}")
    return manifest
