"""The Projector dashboard's routes (``/data/plugin/projector/``).

Embeddings are the files a run's ``projector_config.pbtxt`` names, read through the
provider. Everything is computed on the server on the full data: PCA (NumPy), nearest
neighbours (cosine or euclidean), and t-SNE / UMAP as background jobs the UI polls
(start → progress → result). Coordinates travel as base64 little-endian float32, row-major.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
from flask import Blueprint, Response, current_app

from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.plugins import web
from tbkit.plugins.images.serve import image_content_type
from tbkit.plugins.projector import neighbors, reduce, store
from tbkit.plugins.projector.jobs import JobRegistry
from tbkit.plugins.projector.metadata import PLUGIN_NAME

__all__ = ["TABS", "TSNE_DEFAULT_POINTS", "TSNE_MAX_POINTS", "blueprint"]

TABS = (web.Tab("projector", "Projector", (PLUGIN_NAME,)),)
PCA_COMPONENTS = 10
TSNE_DEFAULT_POINTS = 2000  # the exact gradient costs N² per iteration: larger embeddings are sampled
TSNE_MAX_POINTS = 4000
SKLEARN_MAX_POINTS = 20000
MAX_NEIGHBORS = 1000
_EXTENSION = "tbkit.projector"

blueprint = Blueprint("projector", __name__)


class _State:
    """Per app: the parsed-embedding cache and the layout jobs."""

    def __init__(self) -> None:
        self.cache = store.EmbeddingCache()
        self.jobs = JobRegistry()


def _state() -> _State:
    found = current_app.extensions.get(_EXTENSION)
    if found is None:
        found = current_app.extensions.setdefault(_EXTENSION, _State())
    return found


def _embedding() -> store.Embedding:
    args = web.params()
    run = web.str_param(args, "run")
    name = web.str_param(args, "tensor")
    web.known_runs([run])
    return _state().cache.get(web.provider(), run, name)


def _f32(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode("ascii")


def _engines() -> list[str]:
    return ["numpy"] + (["sklearn"] if reduce.sklearn_available() else [])


@blueprint.get("/embeddings")
def embeddings() -> Response:
    """Every run's embeddings, and the layouts this server can compute."""
    runs = web.runs_param(web.params())
    return web.json_response(
        {
            "runs": store.list_embeddings(web.provider(), runs),
            "methods": ["pca", "tsne"] + (["umap"] if reduce.umap_available() else []),
            "tsne": {
                "engines": _engines(),
                "default_points": TSNE_DEFAULT_POINTS,
                "max_points": {"numpy": TSNE_MAX_POINTS, "sklearn": SKLEARN_MAX_POINTS},
            },
        }
    )


@blueprint.get("/metadata")
def metadata() -> Response:
    """The embedding's shape, metadata columns (column-major) and sprite geometry."""
    emb = _embedding()
    n, d = emb.tensor.shape
    return web.json_response(
        {
            "run": emb.run,
            "tensor": emb.name,
            "shape": [n, d],
            "columns": emb.columns,
            "values": emb.values,
            "sprite": None
            if emb.sprite_dim is None
            else {"width": emb.sprite_dim[0], "height": emb.sprite_dim[1], "per_row": _sprite_columns(n)},
            "warnings": emb.warnings,
        }
    )


def _sprite_columns(n: int) -> int:
    """Thumbnails per sprite row: ``ceil(sqrt(N))`` (TensorBoard's and torch's layout)."""
    return max(1, int(np.ceil(np.sqrt(n))))


@blueprint.get("/sprite")
def sprite() -> Response:
    """The embedding's sprite image (PNG or JPEG); 404 without one."""
    emb = _embedding()
    if emb.sprite_path is None:
        raise NotFoundError(f"embedding {emb.name!r} of run {emb.run!r} has no sprite")
    data = web.provider().read_plugin_file(PLUGIN_NAME, run=emb.run, path=emb.sprite_path)
    content_type = image_content_type(data[:16])
    if content_type is None:
        raise NotFoundError(f"the sprite of embedding {emb.name!r} is not an image")
    return Response(data, mimetype=content_type)


@blueprint.get("/pca")
def pca() -> Response:
    """The first principal components of every point (centred data, NumPy)."""
    args = web.params()
    wanted = web.int_param(args, "components", default=PCA_COMPONENTS, low=1, high=PCA_COMPONENTS)
    emb = _embedding()
    key = ("pca", PCA_COMPONENTS)
    found = emb.derived.get(key)
    if found is None:
        coords, ratios = reduce.pca(emb.tensor, PCA_COMPONENTS)
        found = emb.derived[key] = (coords.astype(np.float32), ratios)
    coords, ratios = found
    k = min(wanted, coords.shape[1])
    n, d = emb.tensor.shape
    return web.json_response(
        {
            "shape": [n, d],
            "components": k,
            "variance": [float(r) for r in ratios[:k]],
            "coords": _f32(coords[:, :k]),
        }
    )


@blueprint.get("/neighbors")
def nearest() -> Response:
    """The ``k`` nearest neighbours of point ``index`` in the full-dimensional space."""
    args = web.params()
    index = web.int_param(args, "index", default=None, low=0)
    if index is None:
        raise InvalidArgumentError("missing parameter 'index'")
    k = web.int_param(args, "k", default=10, low=1, high=MAX_NEIGHBORS) or 10
    metric = web.str_param(args, "metric", default="cosine")
    if metric not in neighbors.METRICS:
        raise InvalidArgumentError(f"metric must be one of {', '.join(neighbors.METRICS)}, got {metric!r}")
    emb = _embedding()
    found = neighbors.nearest(emb.tensor, index, k, metric)
    return web.json_response(
        {
            "index": index,
            "metric": metric,
            "neighbors": [{"index": i, "distance": dist} for i, dist in found],
        }
    )


def _layout_params(args: Any, max_points: int) -> dict[str, Any]:
    return {
        "dims": web.int_param(args, "dims", default=2, low=2, high=3),
        "points": web.int_param(
            args, "points", default=min(TSNE_DEFAULT_POINTS, max_points), low=2, high=max_points
        ),
        "seed": web.int_param(args, "seed", default=0, low=0, high=2**32 - 1),
    }


def _start(
    method: str, compute: Any, emb: store.Embedding, options: dict[str, Any], iterations: int
) -> Response:
    n = emb.tensor.shape[0]
    indices = reduce.sample_indices(n, options["points"], options["seed"])
    data = emb.tensor[indices]
    info = {"method": method, "run": emb.run, "tensor": emb.name, **options}
    info.update(total=n, points=len(indices))
    job = _state().jobs.start(lambda report: compute(data, report), iterations=iterations, info=info)
    return web.json_response(
        {"job": job.id, **info, "indices": None if len(indices) == n else indices.tolist()}
    )


@blueprint.post("/tsne")
def tsne() -> Response:
    """Start a t-SNE job on the embedding (a random sample of ``points`` of it when larger)."""
    args = web.params()
    engine = web.str_param(args, "engine", default="numpy")
    if engine not in _engines():
        raise InvalidArgumentError(f"engine must be one of {', '.join(_engines())}, got {engine!r}")
    limit = SKLEARN_MAX_POINTS if engine == "sklearn" else TSNE_MAX_POINTS
    options = _layout_params(args, limit)
    perplexity = web.float_param(args, "perplexity", default=30.0, low=2.0, high=100.0)
    rate = web.float_param(args, "learning_rate", default=0.0, low=0.0, high=100000.0) or None
    iterations = web.int_param(args, "iterations", default=500, low=10, high=5000) or 500
    emb = _embedding()
    dims, seed = options["dims"], options["seed"]

    def compute(data: np.ndarray, report: Any) -> np.ndarray:
        if engine == "sklearn":  # pragma: no cover - optional dependency
            return reduce.tsne_sklearn(
                data, dims=dims, perplexity=perplexity, learning_rate=rate, iterations=iterations, seed=seed
            )
        return reduce.tsne(
            data,
            dims=dims,
            perplexity=perplexity,
            learning_rate=rate,
            iterations=iterations,
            seed=seed,
            progress=lambda it, y, _kl: report(it, y),
        )

    options.update(perplexity=perplexity, iterations=iterations, engine=engine)
    return _start("tsne", compute, emb, options, iterations)


@blueprint.post("/umap")
def umap() -> Response:
    """Start a UMAP job (only where ``umap-learn`` is installed; 400 otherwise)."""
    if not reduce.umap_available():
        raise InvalidArgumentError("UMAP needs the optional package umap-learn (pip install umap-learn)")
    args = web.params()  # pragma: no cover - optional dependency
    options = _layout_params(args, SKLEARN_MAX_POINTS)  # pragma: no cover
    neighbors_k = web.int_param(args, "neighbors", default=15, low=2, high=200) or 15  # pragma: no cover
    emb = _embedding()  # pragma: no cover
    dims, seed = options["dims"], options["seed"]  # pragma: no cover

    def compute(data: np.ndarray, report: Any) -> np.ndarray:  # pragma: no cover
        return reduce.umap_layout(data, dims=dims, neighbors=neighbors_k, seed=seed)

    options.update(neighbors=neighbors_k)  # pragma: no cover
    return _start("umap", compute, emb, options, 1)  # pragma: no cover


@blueprint.get("/job")
def job() -> Response:
    """A layout job's progress; with ``coords=1`` also its latest (or final) layout."""
    args = web.params()
    found = _state().jobs.get(web.str_param(args, "id"))
    with_coords = web.int_param(args, "coords", default=0, low=0, high=1)
    state, iteration, layout, error = found.snapshot()
    return web.json_response(
        {
            "id": found.id,
            "state": state,
            "iteration": iteration,
            "iterations": found.iterations,
            "error": error,
            **found.info,
            "coords": _f32(layout) if with_coords and layout is not None else None,
        }
    )


@blueprint.post("/job/cancel")
def cancel() -> Response:
    """Stop a layout job (its last layout stays readable)."""
    found = _state().jobs.get(web.str_param(web.params(), "id"))
    found.cancel()
    return web.json_response({"id": found.id, "cancelled": True})
