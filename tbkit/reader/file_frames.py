"""The frame of the file-based projector kind: its embeddings (their files: :mod:`.index`).

Profiler traces are the profile kind's frame (``plugins/profile/frames.py``).

These are not events: their plugins (named by :class:`~tbkit.reader.logdir.Logdir`'s
methods, found through the registry) read plain files through :mod:`tbkit.record.storage`
when a frame is asked for.
What cannot be read becomes a problem naming the file (listed by ``problems()`` once the
kind was read); everything else still reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tbkit.plugins import registry
from tbkit.reader.events import Problem
from tbkit.reader.frames import _frame, _pd
from tbkit.reader.index import LogdirIndex

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["embeddings_frame"]


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
