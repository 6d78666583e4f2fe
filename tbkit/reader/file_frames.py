"""Frames of the file-based kinds: projector embeddings and profiler traces (their files: :mod:`.index`).

These are not events: their plugins (named by :class:`~tbkit.reader.logdir.Logdir`'s
methods, found through the registry) read plain files through :mod:`tbkit.record.storage`
when a frame is asked for.
What cannot be read becomes a problem naming the file (listed by ``problems()`` once the
kind was read); everything else still reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.errors import StorageError
from tbkit.plugins import registry
from tbkit.reader.events import Problem
from tbkit.reader.frames import _frame, _pd
from tbkit.reader.index import LogdirIndex
from tbkit.record import storage

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["embeddings_frame", "traces_frame"]


def _metadata_frame(columns: list[str] | None, rows: list[list[str]] | None) -> Any:
    if columns is None or rows is None:
        return None
    pd = _pd()
    width = len(columns)
    fitted = [(r + [""] * width)[:width] for r in rows]
    return pd.DataFrame(fitted, columns=columns, dtype="string")


def embeddings_frame(index: LogdirIndex, plugin: str) -> pd.DataFrame:
    """run, tag (tensor name), step (nullable), shape, tensor (float64 N×D), metadata (a frame of
    string columns, or None), sprite (PNG bytes or None), sprite_image_dim ((w, h) or None),
    tensor_path: ``plugin``'s embeddings (its decoder's ``embeddings(run_dir)``)."""
    dec = registry.decoder(plugin)
    records, problems = [], []
    for run in index.file_runs():
        found, bad = dec.embeddings(index.run_dir(run))
        problems.extend(Problem(run, path, None, reason) for path, reason in bad)
        for record in found:
            columns, rows = record.pop("metadata_columns"), record.pop("metadata_rows")
            records.append({"run": run, **record, "metadata": _metadata_frame(columns, rows)})
    index.set_file_problems(plugin, problems)
    columns = [
        "run",
        "tag",
        "step",
        "shape",
        "tensor",
        "metadata",
        "sprite",
        "sprite_image_dim",
        "tensor_path",
    ]
    frame = _frame(records, columns)
    frame["step"] = frame["step"].astype("Int64")
    return frame


def traces_frame(index: LogdirIndex, plugin: str, top: int | None = 20) -> pd.DataFrame:
    """run, session, worker, path, events, start_us, span_us, top_ops (a frame: name, category,
    count, total_us, self_us; the ``top`` ops by self time): ``plugin``'s traces of the runs
    ``index`` reads (its decoder's ``find_traces(logdir)`` and ``summarize(data, top=)``)."""
    pd = _pd()
    dec = registry.decoder(plugin)
    records, problems = [], []
    for trace in (t for t in dec.find_traces(index.logdir) if index.wants_run(t["run"])):
        try:
            stats = dec.summarize(storage.read_bytes(trace["path"]), top=top)
        except (StorageError, ValueError) as exc:
            problems.append(Problem(trace["run"], trace["path"], None, f"trace not read: {exc}"))
            continue
        table = pd.DataFrame.from_records(
            stats.pop("top_ops"), columns=["name", "category", "count", "total_us", "self_us"]
        )
        table = table.astype({"count": np.int64, "total_us": np.float64, "self_us": np.float64})
        records.append(
            {**{k: trace[k] for k in ("run", "session", "worker", "path")}, **stats, "top_ops": table}
        )
    index.set_file_problems(plugin, problems)
    frame = _frame(records, ["run", "session", "worker", "path", "events", "start_us", "span_us", "top_ops"])
    return frame.astype({"events": np.int64, "start_us": np.float64, "span_us": np.float64})
