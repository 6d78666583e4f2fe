"""``tbkit report``: one self-contained HTML file with the scalar charts, latest images and text.

The file needs no network and no server: the server's chart code (``tbkit/server/static/
chart.js`` and the modules it imports) is inlined by :mod:`tbkit.cli.jsbundle` together
with ``static/report.js``; the data are embedded as JSON (series min/max-downsampled as the
server does, smoothed on full resolution at the default weight); images are ``data:`` URIs;
text is rendered from Markdown and sanitized by the text plugin's helper. A
Content-Security-Policy in the page forbids every fetch, so nothing can load from elsewhere.

Example:
    >>> write_report("runs", "report.html")  # doctest: +SKIP
    {'charts': 4, 'images': 2, 'texts': 1, 'bytes': 123456}
"""

from __future__ import annotations

import base64
import datetime
import html
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from tbkit._version import __version__
from tbkit.cli._common import open_logdir, quiet_reader
from tbkit.cli.jsbundle import bundle
from tbkit.plugins.colors import assign_colors
from tbkit.plugins.scalars.metadata import PLUGIN_NAME as SCALARS_PLUGIN
from tbkit.plugins.scalars.query import all_scalar_columns, minmax_indices, smooth
from tbkit.plugins.text.render import text_to_html

__all__ = ["build_report", "write_report"]

STATIC = Path(__file__).resolve().parent / "static"
SERVER_STATIC = Path(__file__).resolve().parents[1] / "server" / "static"
CSP = (
    "default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)
_IMAGE_TYPES = [
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
]


def _nullable(values: np.ndarray) -> list[float | None]:
    out: list[Any] = values.tolist()
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        out[i] = None
    return out


def _series(run: str, columns: tuple[np.ndarray, np.ndarray, np.ndarray], points: int, weight: float) -> dict:
    """One run's line: steps, wall times, values and smoothed values at ``points`` points at most."""
    steps, walls, values = columns
    if len(steps) > 1 and np.any(np.diff(steps) < 0):
        order = np.argsort(steps, kind="stable")
        steps, walls, values = steps[order], walls[order], values[order]
    keep = minmax_indices(values, points)
    shown = values[keep]
    smoothed = smooth(values, weight)[keep] if weight > 0 else shown
    nonfinite = {
        str(i): "nan" if math.isnan(shown[i]) else ("inf" if shown[i] > 0 else "-inf")
        for i in np.flatnonzero(~np.isfinite(shown)).tolist()
    }
    return {
        "run": run,
        "total": len(steps),
        "shown": len(keep),
        "step": steps[keep].tolist(),
        "wall_time": walls[keep].tolist(),
        "value": _nullable(shown),
        "smoothed": [None if v is None else float(f"{v:.7g}") for v in _nullable(smoothed)],
        "nonfinite": nonfinite,
    }


def _scalars(ld: Any, points: int, weight: float) -> list[dict[str, Any]]:
    found = all_scalar_columns(ld.provider, SCALARS_PLUGIN, lambda run, tag: True)
    by_tag: dict[str, list[dict[str, Any]]] = {}
    for (run, tag), columns in sorted(found.items(), key=lambda item: (item[0][1], item[0][0])):
        by_tag.setdefault(tag, []).append(_series(run, columns, points, weight))
    return [{"tag": tag, "series": series} for tag, series in sorted(by_tag.items())]


def _mime(data: bytes) -> str | None:
    for magic, mime in _IMAGE_TYPES:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _latest_images(ld: Any, steps: int) -> list[dict[str, Any]]:
    """Per tag, per run: the images of the ``steps`` highest steps (every sample of each)."""
    frame = ld.images()
    out: dict[str, list[dict[str, Any]]] = {}
    if not len(frame):
        return []
    for (run, tag), group in frame.groupby(["run", "tag"], observed=True, sort=True):
        wanted = set(np.unique(group["step"].to_numpy())[-steps:].tolist())
        for row in group[group["step"].isin(wanted)].itertuples(index=False):
            data = bytes(row.data)
            mime = _mime(data)
            if mime is None:
                continue
            uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
            out.setdefault(str(tag), []).append(
                {"run": str(run), "step": int(row.step), "index": int(row.index), "uri": uri,
                 "width": row.width, "height": row.height}
            )  # fmt: skip
    return [{"tag": tag, "items": items} for tag, items in sorted(out.items())]


def _latest_text(ld: Any) -> list[dict[str, Any]]:
    """Per tag, per run: the text of the highest step, as sanitized HTML."""
    frame = ld.text()
    out: dict[str, list[dict[str, Any]]] = {}
    if not len(frame):
        return []
    for (run, tag), group in frame.groupby(["run", "tag"], observed=True, sort=True):
        steps = group["step"].to_numpy()
        row = group.iloc[len(steps) - 1 - int(np.argmax(steps[::-1]))]  # the highest step, last written
        rendered = text_to_html(np.asarray(row["text"], dtype=object))
        out.setdefault(str(tag), []).append({"run": str(run), "step": int(row["step"]), "html": rendered})
    return [{"tag": tag, "items": items} for tag, items in sorted(out.items())]


def _finite_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _swatch(color: str) -> str:
    return f'<span class="swatch" style="background:{color}"></span>'


def _figure(tag: str, item: dict[str, Any], colors: dict[str, str]) -> str:
    e = html.escape
    run, step = e(item["run"]), item["step"]
    sample = f" #{item['index']}" if item["index"] else ""
    return (
        f'<figure class="report-figure" data-run="{run}" data-step="{step}">'
        f'<figcaption>{_swatch(colors[item["run"]])}<span class="run-label">{run}</span>'
        f'<span class="muted">step {step}{sample}</span></figcaption>'
        f'<img src="{item["uri"]}" alt="{e(tag)} ({run}, step {step})"></figure>'
    )


def _media_html(images: list[dict[str, Any]], texts: list[dict[str, Any]], colors: dict[str, str]) -> str:
    e = html.escape
    parts = []
    if images:
        parts.append(
            '<section class="report-section" id="images"><h2>Images (latest)</h2><div class="card-grid">'
        )
        for entry in images:
            figures = "".join(_figure(entry["tag"], item, colors) for item in entry["items"])
            parts.append(
                f'<section class="card images-card" data-tag="{e(entry["tag"])}"><header class="card-header">'
                f'<h3 class="card-title" title="{e(entry["tag"])}">{e(entry["tag"])}</h3></header>'
                f'<div class="media-grid">{figures}</div></section>'
            )
        parts.append("</div></section>")
    if texts:
        parts.append(
            '<section class="report-section" id="text"><h2>Text (latest)</h2><div class="card-grid wide">'
        )
        for entry in texts:
            runs = "".join(
                f'<div class="text-run" data-run="{e(i["run"])}"><div class="step-head">'
                f"{_swatch(colors[i['run']])} "
                f'{e(i["run"])} · step {i["step"]}</div><div class="text-html">{i["html"]}</div></div>'
                for i in entry["items"]
            )
            parts.append(
                f'<section class="card text-card" data-tag="{e(entry["tag"])}"><header class="card-header">'
                f'<h3 class="card-title" title="{e(entry["tag"])}">{e(entry["tag"])}</h3></header>'
                f"{runs}</section>"
            )
        parts.append("</div></section>")
    return "".join(parts)


def _script_json(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _inline_script(source: str) -> str:
    return (
        source.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT").replace("<!--", "<\\!--")
    )


def build_report(
    ld: Any, *, title: str, smoothing: float = 0.6, points: int = 1000, images: int = 1
) -> tuple[str, dict[str, int]]:
    """The HTML text of the report over a read logdir, and counts of what it holds."""
    with quiet_reader():
        scalars = _scalars(ld, points, smoothing)
        image_entries = _latest_images(ld, images)
        text_entries = _latest_text(ld)
        run_frame = ld.runs()
    starts = dict(zip(run_frame["run"].astype(str), run_frame["start_time"].tolist(), strict=True))
    runs = sorted({s["run"] for t in scalars for s in t["series"]})
    media_runs = {i["run"] for entry in image_entries + text_entries for i in entry["items"]}
    colors = assign_colors(set(starts) | set(runs) | media_runs)  # the server's rule: every run of the logdir
    data = {
        "title": title,
        "smoothing": smoothing,
        "runs": [{"name": r, "color": colors[r], "start": _finite_or_none(starts.get(r))} for r in runs],
        "scalars": scalars,
    }
    style = "".join(
        p.read_text(encoding="utf-8") for p in (SERVER_STATIC / "style.css", STATIC / "report.css")
    )
    script = bundle(STATIC / "report.js")
    e = html.escape
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    counts = {
        "charts": len(scalars),
        "images": sum(len(t["items"]) for t in image_entries),
        "texts": sum(len(t["items"]) for t in text_entries),
    }
    scalar_section = (
        '<section class="report-section" id="scalars"><h2>Scalars</h2>'
        "<noscript><p>The charts need JavaScript.</p></noscript></section>"
        if scalars
        else ""
    )
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="tbkit {e(__version__)}">
<title>{e(title)}</title>
<style>
{style}
</style>
</head>
<body>
<header class="report-head"><h1>{e(title)}</h1>
<p>{e(str(ld.path))} · {len(run_frame)} run(s) · {counts["charts"]} scalar tag(s) ·
generated {when} by tbkit {e(__version__)}</p>
</header>
{scalar_section}
{_media_html(image_entries, text_entries, colors)}
<footer class="report-foot muted">Drag on a chart to zoom, double-click to reset.
Smoothing: TensorBoard's debiased exponential moving average.</footer>
<script type="application/json" id="tbkit-report-data">{_script_json(data)}</script>
<script>
{_inline_script(script)}
</script>
</body>
</html>
"""
    return page, counts


def write_report(
    logdir: str,
    output: str,
    *,
    runs: str | None = None,
    tags: str | None = None,
    title: str | None = None,
    smoothing: float = 0.6,
    points: int = 1000,
    images: int = 1,
    progress: bool | None = None,
) -> dict[str, int]:
    """Write the report of ``logdir`` to the HTML file ``output``.

    Args:
        logdir: Local path or fsspec URL.
        output: The HTML file to write (its directory is created).
        runs: Runs where this regex matches anywhere in the name (None: all).
        tags: Tags where this regex matches anywhere in the name (None: all).
        title: The page title (default: the logdir's name).
        smoothing: The initial smoothing weight in ``[0, 1)``.
        points: Points per line at most (min/max downsampled, as the server does).
        images: How many of the latest steps of each image series to show.
        progress: Draw a progress bar while reading (default: when stderr is a terminal).

    Returns:
        ``{"charts", "images", "texts", "bytes"}``.
    """
    ld = open_logdir(logdir, runs=runs, tags=tags, progress=progress)
    name = os.path.basename(os.path.normpath(str(logdir))) or str(logdir)
    page, counts = build_report(ld, title=title or name, smoothing=smoothing, points=points, images=images)
    folder = os.path.dirname(os.path.abspath(output))
    os.makedirs(folder, exist_ok=True)
    encoded = page.encode("utf-8")
    with open(output, "wb") as handle:
        handle.write(encoded)
    return {**counts, "bytes": len(encoded)}
