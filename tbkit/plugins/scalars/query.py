"""The scalar dashboard's computations, as plain functions over NumPy arrays and a provider.

* :func:`smooth`: TensorBoard's debiased exponential moving average, vectorised;
* :func:`minmax_indices`: bucketed min/max downsampling that keeps spikes, first and last;
* :func:`scalar_columns`: one tag's full-resolution columns for several runs (the
  provider's ``read_scalar_columns``);
* :func:`series_payload`: the JSON answer for one series; :func:`series_json`: the same,
  encoded (the route's fast path: the NumPy columns go to the encoder as they are);
* :func:`to_csv`, :func:`to_json_rows`, :func:`zip_of_csv`: the downloads.

Example:
    >>> smooth(np.array([1.0, 1.0, 1.0]), 0.6).tolist()
    [1.0, 1.0, 1.0]
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import orjson

from tbkit.provider import DataProvider, ScalarColumns

__all__ = [
    "Columns",
    "all_scalar_columns",
    "minmax_indices",
    "safe_path",
    "scalar_columns",
    "series_json",
    "series_payload",
    "smooth",
    "thin_indices",
    "to_csv",
    "to_json_rows",
    "zip_of_csv",
]

Columns = ScalarColumns  # steps (int64), wall times, values (float64)

_LOG_TINY = math.log(1e-100)  # w**k stays above this inside one block: no overflow in w**-k


def _ema_block(z: np.ndarray, w: float, carry: float) -> np.ndarray:
    # last_t = w**(t+1) * carry + (1-w) * sum_{i<=t} w**(t-i) * z_i, for t in the block
    k = np.arange(len(z), dtype=np.float64)
    down = np.power(w, k)
    return w * down * carry + (1.0 - w) * down * np.cumsum(z / down)


def smooth(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's debiased EMA of ``values`` with smoothing ``weight`` in ``[0, 1)``.

    ``last = last * w + (1 - w) * y; n += 1; smoothed = last / (1 - w**n)`` over the
    finite values; non-finite values are passed through and not mixed in, and a
    constant series is returned unchanged.
    """
    values = np.asarray(values, dtype=np.float64)
    out = values.copy()
    if weight <= 0 or len(values) == 0:
        return out
    if not 0 <= weight < 1:
        raise ValueError(f"smoothing weight must be in [0, 1), got {weight}")
    if np.all(values == values[0]):
        return out
    finite = np.isfinite(values)
    z = values[finite]
    block = max(1, int(_LOG_TINY / math.log(weight)))
    last = np.empty(len(z), dtype=np.float64)
    carry = 0.0
    for lo in range(0, len(z), block):
        part = _ema_block(z[lo : lo + block], weight, carry)
        last[lo : lo + len(part)] = part
        carry = float(part[-1])
    n = np.arange(1, len(z) + 1, dtype=np.float64)
    out[finite] = last / -np.expm1(n * math.log(weight))
    return out


def minmax_indices(values: np.ndarray, limit: int | None) -> np.ndarray:
    """Indices (increasing) of at most ``limit`` points: first, last, and each bucket's min and max.

    The points between the first and the last are cut into equal buckets; each keeps
    its smallest and largest value (NaN counts as both extremes, so it stays visible).
    With fewer than 4 allowed, the last point (and the first) only; ``None``: every point.
    """
    n = len(values)
    if limit is None or n <= limit:
        return np.arange(n)
    if limit < 4:  # no room for a bucket's min and max: the ends only
        return np.array([0, n - 1][2 - min(limit, 2) :], dtype=np.int64)
    inner = n - 2
    buckets = max(1, (limit - 2) // 2)
    size = -(-inner // buckets)
    buckets = -(-inner // size)
    v = np.asarray(values[1:-1], dtype=np.float64)
    nan = np.isnan(v)
    low = np.full(buckets * size, np.inf)
    high = np.full(buckets * size, -np.inf)
    low[:inner] = np.where(nan, -np.inf, v)
    high[:inner] = np.where(nan, np.inf, v)
    base = np.arange(buckets) * size + 1
    lows = base + np.argmin(low.reshape(buckets, size), axis=1)
    highs = base + np.argmax(high.reshape(buckets, size), axis=1)
    keep = np.concatenate([[0], lows, highs, [n - 1]])
    return np.unique(keep).astype(np.int64)


def thin_indices(indices: np.ndarray, limit: int | None) -> np.ndarray:
    """At most ``limit`` of ``indices`` (increasing), evenly spread, always keeping the last.

    The first is kept too when ``limit`` is 2 or more; ``None`` keeps them all.
    """
    if limit is None or len(indices) <= limit:
        return indices
    if limit == 1:
        return indices[-1:]
    return indices[np.round(np.linspace(0, len(indices) - 1, limit)).astype(np.int64)]


def scalar_columns(
    provider: DataProvider, plugin_name: str, tag: str, runs: Iterable[str] | None
) -> dict[str, Columns]:
    """``{run: (steps, wall_times, values)}`` of ``tag`` at full resolution, for runs that have it."""
    wanted = None if runs is None else set(runs)
    found = all_scalar_columns(
        provider, plugin_name, lambda r, t: t == tag and (wanted is None or r in wanted)
    )
    return {run: columns for (run, _), columns in found.items()}


def all_scalar_columns(
    provider: DataProvider, plugin_name: str, keep: Callable[[str, str], bool]
) -> dict[tuple[str, str], Columns]:
    """``{(run, tag): columns}`` at full resolution for every series ``keep(run, tag)`` accepts.

    The provider's :meth:`~tbkit.provider.DataProvider.read_scalar_columns`, keyed by pairs.
    """
    found = provider.read_scalar_columns(plugin_name, keep=keep)
    return {(run, tag): columns for run, tags in found.items() for tag, columns in tags.items()}


def _nullable(values: np.ndarray) -> list[float | None]:
    out: list[Any] = values.tolist()
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        out[i] = None
    return out


def series_payload(
    columns: Columns,
    *,
    points: int | None,
    smoothing: float = 0.0,
    min_step: int | None = None,
    max_step: int | None = None,
) -> dict[str, Any]:
    """The JSON answer for one series: smoothed on full resolution, then cut and downsampled.

    ``points`` is the most points sent (None: every point in the step range).

    Returns ``{"total", "in_range", "shown", "step", "wall_time", "value", "smoothed"}``
    plus ``"nonfinite": {index: "nan"/"inf"/"-inf"}`` when some shown value is not finite.
    """
    steps, walls, values = columns
    if len(steps) > 1 and np.any(np.diff(steps) < 0):
        order = np.argsort(steps, kind="stable")
        steps, walls, values = steps[order], walls[order], values[order]
    smoothed = smooth(values, smoothing)
    lo = 0 if min_step is None else int(np.searchsorted(steps, min_step, side="left"))
    hi = len(steps) if max_step is None else int(np.searchsorted(steps, max_step, side="right"))
    keep = lo + minmax_indices(values[lo:hi], points) if hi > lo else np.zeros(0, dtype=np.int64)
    shown = values[keep]
    payload: dict[str, Any] = {
        "total": len(steps),
        "in_range": max(0, hi - lo),
        "shown": len(keep),
        "step": steps[keep].tolist(),
        "wall_time": walls[keep].tolist(),
        "value": _nullable(shown),
        "smoothed": _nullable(smoothed[keep]),
    }
    bad = _nonfinite(shown)
    if bad:
        payload["nonfinite"] = bad
    return payload


def _nonfinite(shown: np.ndarray) -> dict[str, str]:
    bad = np.flatnonzero(~np.isfinite(shown)).tolist()
    return {str(i): "nan" if math.isnan(shown[i]) else ("inf" if shown[i] > 0 else "-inf") for i in bad}


_NUMPY = orjson.OPT_SERIALIZE_NUMPY


def series_json(
    columns: Columns,
    *,
    points: int | None,
    smoothing: float = 0.0,
    min_step: int | None = None,
    max_step: int | None = None,
) -> bytes:
    """:func:`series_payload` encoded as compact JSON (non-finite values as null), the same bytes
    :func:`tbkit.plugins.web.json_bytes` makes of it, without a Python float per point.

    The columns go to the encoder as NumPy arrays; a series in step order, shown whole
    (the common case: no zoom, fewer points than ``points``) is not copied at all.
    """
    steps = np.ascontiguousarray(columns[0], dtype=np.int64)
    walls = np.ascontiguousarray(columns[1], dtype=np.float64)
    values = np.ascontiguousarray(columns[2], dtype=np.float64)
    n = len(steps)
    if n > 1 and bool((steps[1:] < steps[:-1]).any()):
        order = np.argsort(steps, kind="stable")
        steps, walls, values = steps[order], walls[order], values[order]
    smoothed = smooth(values, smoothing) if smoothing > 0 else values
    lo = 0 if min_step is None else int(np.searchsorted(steps, min_step, side="left"))
    hi = n if max_step is None else int(np.searchsorted(steps, max_step, side="right"))
    in_range = max(0, hi - lo)
    if in_range == n and (points is None or n <= points):
        shown_steps, shown_walls, shown, shown_smoothed = steps, walls, values, smoothed
    else:
        keep = lo + minmax_indices(values[lo:hi], points) if hi > lo else np.zeros(0, dtype=np.int64)
        shown_steps, shown_walls, shown, shown_smoothed = (
            steps[keep],
            walls[keep],
            values[keep],
            smoothed[keep],
        )
    payload: dict[str, Any] = {
        "total": n,
        "in_range": in_range,
        "shown": len(shown),
        "step": shown_steps,
        "wall_time": shown_walls,
        "value": shown,
        "smoothed": shown_smoothed,
    }
    if not bool(np.isfinite(shown).all()):
        payload["nonfinite"] = _nonfinite(shown)
    return orjson.dumps(payload, option=_NUMPY)


def to_csv(columns: Columns) -> str:
    """``step,wall_time,value`` CSV with a header; floats written exactly (shortest repr)."""
    steps, walls, values = columns
    lines = ["step,wall_time,value"]
    lines.extend(
        f"{s},{w!r},{v!r}" for s, w, v in zip(steps.tolist(), walls.tolist(), values.tolist(), strict=True)
    )
    return "\n".join(lines) + "\n"


def to_json_rows(columns: Columns) -> str:
    """A JSON list of ``{"step", "wall_time", "value"}``; non-finite values and wall times as ``null``."""
    steps, walls, values = columns
    rows = [
        {"step": s, "wall_time": w if math.isfinite(w) else None, "value": v if math.isfinite(v) else None}
        for s, w, v in zip(steps.tolist(), walls.tolist(), values.tolist(), strict=True)
    ]
    return json.dumps(rows, separators=(",", ":"), allow_nan=False)


_UNSAFE = re.compile(r"[^A-Za-z0-9._\-+=@ ]")


MAX_PART = 120  # characters of one path part (file systems allow 255 bytes)
MAX_PATH = 1000  # characters of a whole member path (a zip allows 65,535 bytes)


def _shortened(text: str, limit: int) -> str:
    """``text`` when it fits in ``limit``, else its start and a digest of the whole (still unique)."""
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{text[: limit - len(digest) - 1].rstrip('/ ')}~{digest}"


def safe_path(*names: str) -> str:
    """A relative zip member path from run and tag names: each ``/`` part made filesystem-safe.

    A part longer than :data:`MAX_PART` characters, or a path longer than :data:`MAX_PATH`,
    is cut and ends with ``~`` and a digest of what was cut, so distinct names stay distinct.
    """
    parts = []
    for name in names:
        for part in name.split("/"):
            cleaned = _UNSAFE.sub("_", part).strip(" ")
            parts.append("_" if cleaned in ("", ".", "..") else _shortened(cleaned, MAX_PART))
    return _shortened("/".join(parts), MAX_PATH)


def zip_of_csv(entries: Iterable[tuple[str, str, Columns]]) -> bytes:
    """A zip holding ``<run>/<tag>.csv`` for each ``(run, tag, columns)``; clashing names get ``~N``."""
    buffer = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for run, tag, columns in entries:
            base = safe_path(run, tag)
            name, k = f"{base}.csv", 1
            while name.lower() in used:
                k += 1
                name = f"{base}~{k}.csv"
            used.add(name.lower())
            member = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # deterministic archives
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, to_csv(columns), compresslevel=1)
    return buffer.getvalue()
