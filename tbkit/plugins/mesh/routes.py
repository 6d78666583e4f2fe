"""The mesh dashboard's routes (``/data/plugin/mesh/``).

A mesh is stored as up to three tensor series of plugin ``mesh`` (``<name>_VERTEX``,
``<name>_FACE``, ``<name>_COLOR``) whose metadata name the mesh; the routes speak of the
mesh by that name (its ``tag``) and join the components per step with
:func:`tbkit.plugins.mesh.decode.join`. Components are ``[batch, n, 3]``; ``sample`` picks
the batch entry.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import web
from tbkit.plugins.mesh.decode import join, parse_content
from tbkit.plugins.mesh.metadata import PLUGIN_NAME, ContentType
from tbkit.provider import RunTagFilter

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("mesh", "Mesh", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 100
DEFAULT_POINTS = 50_000  # a point cloud's vertices sent at most (a mesh with faces is sent whole)
DIGITS = 7  # significant digits kept of vertex coordinates (about float32's)
_NAMES = {ContentType.VERTEX: "vertices", ContentType.FACE: "faces", ContentType.COLOR: "colors"}

blueprint = Blueprint("mesh", __name__)


def _components(run: str | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """``{run: {name: {"tags": {component: tag}, "shapes", "contents": {tag: bytes}, "max_step", ...}}}``."""
    filt = RunTagFilter(runs=[run]) if run is not None else None
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for run_name, series in web.provider().list_tensors(PLUGIN_NAME, run_tag_filter=filt).items():
        for tag, meta in sorted(series.items()):
            info = parse_content(meta.plugin_content)
            component = _NAMES.get(info.content_type)  # type: ignore[call-overload]
            if component is None:
                continue
            name = info.name or tag
            mesh = out.setdefault(run_name, {}).setdefault(
                name,
                {"tags": {}, "shapes": {}, "contents": {}, "max_step": meta.max_step, "description": ""},
            )
            mesh["tags"][component] = tag
            mesh["contents"][tag] = meta.plugin_content
            mesh["shapes"][component] = list(info.shape)
            mesh["max_step"] = max(mesh["max_step"], meta.max_step)
            mesh["description"] = mesh["description"] or meta.description
    return out


@blueprint.get("/tags")
def tags() -> Response:
    """``{run: {mesh name: {display_name, description, max_step, components, samples, vertices}}}``."""
    answer = {
        run: {
            name: {
                "display_name": name,
                "description": mesh["description"],
                "max_step": mesh["max_step"],
                "components": sorted(mesh["tags"]),
                "samples": _first(mesh["shapes"].get("vertices"), 0, 1),
                "vertices": _first(mesh["shapes"].get("vertices"), 1, 0),
                "faces": _first(mesh["shapes"].get("faces"), 1, 0),
            }
            for name, mesh in meshes.items()
            if "vertices" in mesh["tags"]
        }
        for run, meshes in _components().items()
    }
    return web.json_response({run: meshes for run, meshes in answer.items() if meshes})


def _first(shape: list[int] | None, axis: int, default: int) -> int:
    return int(shape[axis]) if shape and len(shape) > axis and shape[axis] >= 0 else default


def _rows(run: str, name: str, steps: int | None) -> list[dict[str, Any]]:
    """The joined rows (one per step) of mesh ``name`` in ``run``; 404 when it has no vertices."""
    mesh = _components(run).get(run, {}).get(name)
    if mesh is None or "vertices" not in mesh["tags"]:
        raise NotFoundError(f"run {run!r} has no mesh {name!r}")
    data = web.provider().read_tensors(
        PLUGIN_NAME, downsample=steps, run_tag_filter=RunTagFilter(runs=[run], tags=mesh["tags"].values())
    )[run]
    parts = [
        (
            tag,
            mesh["contents"][tag],
            np.array([d.step for d in series], dtype=np.int64),
            np.array([d.wall_time for d in series], dtype=np.float64),
            [d.numpy for d in series],
        )
        for tag, series in data.items()
    ]
    return [row for row in join(parts) if row["vertices"] is not None]


def _sample(array: np.ndarray | None, sample: int) -> np.ndarray | None:
    if array is None:
        return None
    return array[sample] if sample < array.shape[0] else None


def _batch(row: dict[str, Any]) -> int:
    return int(row["vertices"].shape[0])


def _common(args: Any) -> tuple[str, str, int]:
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    web.known_runs([run])
    sample = web.int_param(args, "sample", default=0, low=0, high=None) or 0
    return run, tag, sample


@blueprint.get("/meshes")
def meshes() -> Response:
    """The steps of one mesh: ``[{step, wall_time, samples, vertices, faces, colors, config}]``.

    ``vertices`` and ``faces`` are counts (of batch entry ``sample``), ``colors`` whether
    the step has colours. At most ``steps`` steps (the latest kept).
    """
    args = web.params()
    run, tag, sample = _common(args)
    steps = web.int_param(args, "steps", default=web.samples(PLUGIN_NAME, DEFAULT_STEPS), low=1, high=None)
    out = []
    for row in _rows(run, tag, steps):
        vertices = _sample(row["vertices"], sample)
        faces = _sample(row["faces"], sample)
        out.append(
            {
                "step": row["step"],
                "wall_time": row["wall_time"],
                "samples": _batch(row),
                "vertices": 0 if vertices is None else int(vertices.shape[0]),
                "faces": 0 if faces is None else int(faces.shape[0]),
                "colors": _sample(row["colors"], sample) is not None,
                "config": row["config"],
            }
        )
    return web.json_response(out)


def round_significant(values: np.ndarray, digits: int = DIGITS) -> list[float]:
    """``values`` flattened, rounded to ``digits`` significant digits of the largest magnitude.

    Example:
        >>> round_significant(np.array([[0.1, 2.0000001]], np.float32))
        [0.1, 2.0]
    """
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    finite = flat[np.isfinite(flat)]
    largest = float(np.max(np.abs(finite))) if finite.size else 0.0
    decimals = digits - 1 - (math.floor(math.log10(largest)) if largest > 0 else 0)
    return np.round(flat, max(0, decimals)).tolist()


def _thin(count: int, limit: int) -> np.ndarray | None:
    """Indices of at most ``limit`` of ``count`` points, evenly spread; None to keep them all."""
    if count <= limit:
        return None
    return np.unique(np.linspace(0, count - 1, limit).round().astype(np.int64))


def _rgb(colors: np.ndarray) -> list[int]:
    return np.clip(np.asarray(colors, dtype=np.float64), 0, 255).round().astype(np.int64).reshape(-1).tolist()


@blueprint.get("/mesh")
def mesh() -> Response:
    """One mesh: batch entry ``sample`` of ``step`` (default: the latest step).

    Answers ``{step, wall_time, samples, vertices: [x0, y0, z0, x1, ...], faces: [i0, j0, k0,
    ...] | null, colors: [r0, g0, b0, ...] | null, total_vertices, config}``. A point cloud
    (no faces) of more than ``points`` vertices is thinned evenly to ``points``.
    """
    args = web.params()
    run, tag, sample = _common(args)
    step = web.int_param(args, "step", default=None)
    points = web.int_param(args, "points", default=DEFAULT_POINTS, low=1, high=None) or DEFAULT_POINTS
    rows = _rows(run, tag, None)
    if not rows:
        raise NotFoundError(f"run {run!r} has no data for mesh {tag!r}")
    row = rows[-1] if step is None else next((r for r in rows if r["step"] == step), None)
    if row is None:
        raise NotFoundError(f"mesh {tag!r} of run {run!r} has no step {step}")
    vertices = _sample(row["vertices"], sample)
    if vertices is None:
        raise NotFoundError(f"mesh {tag!r} at step {row['step']} has no sample {sample}")
    faces = _sample(row["faces"], sample)
    colors = _sample(row["colors"], sample)
    total = int(vertices.shape[0])
    keep = _thin(total, points) if faces is None else None
    if keep is not None:
        vertices = vertices[keep]
        colors = colors[keep] if colors is not None and len(colors) == total else colors
    return web.json_response(
        {
            "step": row["step"],
            "wall_time": row["wall_time"],
            "samples": _batch(row),
            "total_vertices": total,
            "vertices": round_significant(vertices),
            "faces": None if faces is None else np.asarray(faces, dtype=np.int64).reshape(-1).tolist(),
            "colors": None if colors is None else _rgb(colors),
            "config": row["config"],
        }
    )
