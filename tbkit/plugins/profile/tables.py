"""A trace's summary tables, from its timeline (:func:`tbkit.plugins.profile.analysis.build_timeline`).

:func:`op_table` groups the timed events (not instants) by name and category;
:func:`step_times` reads the ``ProfilerStep#N`` events torch's profiler writes.

Example:
    >>> from tbkit.plugins.profile.analysis import build_timeline
    >>> t = build_timeline([{"ph": "X", "name": "ProfilerStep#3", "ts": 0, "dur": 7, "pid": 1, "tid": 1}])
    >>> [(r["name"], r["count"]) for r in op_table(t)], step_times(t)["steps"]
    ([('ProfilerStep#3', 1)], [{'step': 3, 'ts_us': 0.0, 'dur_us': 7.0}])
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tbkit.plugins.profile.analysis import Timeline

__all__ = ["op_table", "step_times"]

_STEP = re.compile(r"^ProfilerStep#(\d+)$")


def op_table(timeline: Timeline) -> list[dict[str, Any]]:
    """Rows ``{name, category, count, total_us, self_us}`` of the timed events (instants left
    out), one per name and category, by self time (largest first), then name."""
    timed = ~timeline.instant
    if not timed.any():
        return []
    key = timeline.name[timed].astype(np.int64) * max(1, len(timeline.categories)) + timeline.cat[timed]
    keys, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    total = np.bincount(inverse, weights=timeline.dur[timed], minlength=len(keys))
    own = np.bincount(inverse, weights=timeline.self_us[timed], minlength=len(keys))
    width = max(1, len(timeline.categories))
    rows = [
        {
            "name": timeline.names[int(k // width)],
            "category": timeline.categories[int(k % width)],
            "count": int(c),
            "total_us": float(t),
            "self_us": float(s),
        }
        for k, c, t, s in zip(keys.tolist(), counts.tolist(), total.tolist(), own.tolist(), strict=True)
    ]
    rows.sort(key=lambda r: (-r["self_us"], r["name"], r["category"]))
    return rows


def step_times(timeline: Timeline) -> dict[str, Any]:
    """Training steps from the ``ProfilerStep#N`` events (torch's profiler writes one per
    ``prof.step()``); a step on several tracks spans from its first start to its last end.

    Returns:
        ``steps``: rows ``{step, ts_us, dur_us}`` by step number; ``summary``: ``count``,
        ``mean_us``, ``min_us``, ``max_us``, ``std_us`` (None without steps); ``note``: why
        there are none (else None).
    """
    spans: dict[int, list[float]] = {}
    for k, text in enumerate(timeline.names):
        found = _STEP.match(text)
        if not found:
            continue
        for i in np.flatnonzero(timeline.name == k).tolist():
            start, end = float(timeline.ts[i]), float(timeline.ts[i] + timeline.dur[i])
            span = spans.setdefault(int(found.group(1)), [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)
    steps = [{"step": n, "ts_us": a, "dur_us": b - a} for n, (a, b) in sorted(spans.items())]
    if not steps:
        note = (
            "No ProfilerStep#N events in this trace: step times need torch.profiler.profile "
            "with a schedule and prof.step() after each step."
        )
        return {"steps": [], "summary": None, "note": note}
    durations = np.array([s["dur_us"] for s in steps])
    summary = {
        "count": len(steps),
        "mean_us": float(durations.mean()),
        "min_us": float(durations.min()),
        "max_us": float(durations.max()),
        "std_us": float(durations.std()),
    }
    return {"steps": steps, "summary": summary, "note": None}
