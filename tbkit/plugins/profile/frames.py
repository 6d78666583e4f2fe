"""The traces frame: one row per profiler trace file, from the provider's plugin files."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tbkit.errors import NotFoundError
from tbkit.plugins import registry
from tbkit.plugins._frames import pandas, records_frame, run_path
from tbkit.provider import DataProvider

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin

__all__ = ["traces_frame"]

_COLUMNS = ["run", "session", "worker", "path", "events", "start_us", "span_us", "top_ops"]
_OPS = ["name", "category", "count", "total_us", "self_us"]


def traces_frame(provider: DataProvider, plugin: Plugin, *, top: int | None = 20) -> pd.DataFrame:
    """run, session, worker, path, events, start_us, span_us, top_ops (a frame: name, category,
    count, total_us, self_us; the ``top`` ops by self time): one row per trace file the
    provider lists for ``plugin`` (its decoder's ``trace_name`` and ``summarize(data, top=)``).

    A trace that cannot be read or parsed becomes a problem naming its file
    (:meth:`~tbkit.provider.DataProvider.report_plugin_file_problems`).
    """
    pd = pandas()
    dec = registry.decoder(plugin.name)
    records, problems = [], []
    traces = []  # (run, path below the run directory, session, worker)
    for run, files in provider.list_plugin_files(plugin.name).items():
        for file in files:
            named = dec.trace_name(file.path)
            if named is not None:
                traces.append((run, file.path, *named))
    read = provider.read_plugin_files(plugin.name, files=[(run, relative) for run, relative, _, _ in traces])
    for (run, relative, session, worker), data in zip(traces, read, strict=True):
        path = run_path(provider, run, relative)
        try:
            if isinstance(data, NotFoundError):
                raise ValueError(str(data.__cause__ or data))
            stats = dec.summarize(data, top=top)
        except ValueError as exc:
            problems.append((run, path, f"trace not read: {exc}"))
            continue
        table = pd.DataFrame.from_records(stats.pop("top_ops"), columns=_OPS)
        table = table.astype({"count": np.int64, "total_us": np.float64, "self_us": np.float64})
        records.append({"run": run, "session": session, "worker": worker, "path": path, **stats,
                        "top_ops": table})  # fmt: skip
    provider.report_plugin_file_problems(plugin.name, problems=problems)
    frame = records_frame(records, _COLUMNS)
    return frame.astype({"events": np.int64, "start_us": np.float64, "span_us": np.float64})
