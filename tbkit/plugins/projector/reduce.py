"""Dimension reduction for the projector: PCA and t-SNE in NumPy (UMAP through ``umap-learn`` if present).

Pure functions of arrays: no I/O, no threads. :func:`tsne` reports its progress through a
callback, which the server's background jobs use to show (and stop) a running layout.

Example:
    >>> coords, ratios = pca(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]), 2)
    >>> coords.shape, round(float(ratios[0]), 6)
    ((3, 2), 1.0)
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable

import numpy as np

from tbkit.errors import InvalidArgumentError

__all__ = [
    "EXACT_PCA_LIMIT",
    "TSNE_PCA_DIMS",
    "pca",
    "sample_indices",
    "sklearn_available",
    "tsne",
    "tsne_sklearn",
    "umap_available",
    "umap_layout",
]

# Below this many points or dimensions PCA is exact (an eigendecomposition of the smaller Gram
# matrix); above, a randomized SVD finds the leading components.
EXACT_PCA_LIMIT = 2048
# t-SNE first reduces the data to this many principal components (as TensorBoard does).
TSNE_PCA_DIMS = 50

Progress = Callable[[int, np.ndarray, float], bool]


def _orient(coords: np.ndarray) -> np.ndarray:
    """Flip each column so that its largest-magnitude value is positive (a deterministic sign)."""
    if coords.size == 0:
        return coords
    rows = np.argmax(np.abs(coords), axis=0)
    signs = np.sign(coords[rows, np.arange(coords.shape[1])])
    signs[signs == 0] = 1.0
    return coords * signs


def _randomized(centred: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` singular values and left vectors scaled by them (Halko et al.'s range finder)."""
    rng = np.random.default_rng(seed)
    width = min(k + 10, *centred.shape)
    basis = centred @ rng.standard_normal((centred.shape[1], width))
    for _ in range(4):  # power iterations sharpen the range for slowly decaying spectra
        basis, _ = np.linalg.qr(basis)
        basis, _ = np.linalg.qr(centred.T @ basis)
        basis = centred @ basis
    basis, _ = np.linalg.qr(basis)
    u_small, singular, _ = np.linalg.svd(basis.T @ centred, full_matrices=False)
    return (basis @ u_small[:, :k]) * singular[:k], singular[:k] ** 2


def pca(x: np.ndarray, components: int = 10, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Principal components of the rows of ``x``.

    The data are centred; the projection on each component is returned with a fixed sign
    (its largest-magnitude coordinate positive), so the same data always give the same picture.

    Args:
        x: ``N×D`` values.
        components: How many leading components to return (at most ``min(N, D)``).
        seed: Seed of the randomized SVD used for large inputs.

    Returns:
        ``(coords, ratios)``: ``N×k`` float64 coordinates and the fraction of the total variance
        each component explains (``k = min(components, N, D)``).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise InvalidArgumentError(f"PCA needs an N×D array, got shape {x.shape}")
    n, d = x.shape
    k = max(0, min(components, n, d))
    centred = x - x.mean(axis=0) if n else x
    total = float(np.sum(centred * centred))
    if k == 0:
        return np.zeros((n, 0)), np.zeros(0)
    if min(n, d) <= EXACT_PCA_LIMIT:
        if d <= n:
            values, vectors = np.linalg.eigh(centred.T @ centred)
            order = np.argsort(values)[::-1][:k]
            coords = centred @ vectors[:, order]
        else:
            values, vectors = np.linalg.eigh(centred @ centred.T)
            order = np.argsort(values)[::-1][:k]
            coords = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))
        variances = np.clip(values[order], 0.0, None)
    else:
        coords, variances = _randomized(centred, k, seed)
    ratios = variances / total if total > 0 else np.zeros(k)
    return _orient(coords), ratios


def sample_indices(n: int, limit: int, seed: int = 0) -> np.ndarray:
    """Every index below ``n``, or ``limit`` of them drawn at random (sorted) when ``n`` is larger."""
    if n <= limit:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


def _nearest(x: np.ndarray, k: int, block: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest other rows: ``(indices, squared distances)``, both ``N×k``."""
    n = x.shape[0]
    norms = np.einsum("ij,ij->i", x, x)
    indices = np.empty((n, k), dtype=np.int64)
    dists = np.empty((n, k))
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        d = norms[lo:hi, None] + norms[None, :] - 2.0 * (x[lo:hi] @ x.T)
        d[np.arange(hi - lo), np.arange(lo, hi)] = np.inf
        part = np.argpartition(d, k - 1, axis=1)[:, :k] if k < n - 1 else np.argsort(d, axis=1)[:, :k]
        indices[lo:hi] = part
        dists[lo:hi] = np.maximum(np.take_along_axis(d, part, axis=1), 0.0)
    return indices, dists


def _affinities(x: np.ndarray, perplexity: float) -> np.ndarray:
    """Symmetric input similarities P (dense ``N×N`` float32 summing to 1).

    Each row's Gaussian over its ``3·perplexity`` nearest neighbours is fitted to the
    perplexity by a bisection on every row's precision at once (scikit-learn's approximation;
    farther points would get negligible weight).
    """
    n = x.shape[0]
    k = min(n - 1, int(3 * perplexity) + 1)
    indices, dist = _nearest(x, k)
    dist = dist - dist.min(axis=1, keepdims=True)  # exp() of the nearest neighbour is 1: no underflow
    target = math.log(perplexity)
    beta = np.ones(n)
    low = np.zeros(n)
    high = np.full(n, np.inf)
    for _ in range(100):
        weights = np.exp(-dist * beta[:, None])
        total = weights.sum(axis=1)
        entropy = np.log(total) + beta * (dist * weights).sum(axis=1) / total
        too_flat = entropy > target
        low = np.where(too_flat, beta, low)
        high = np.where(too_flat, high, beta)
        beta = np.where(np.isinf(high), beta * 2.0, (low + high) / 2.0)
        if np.max(np.abs(entropy - target)) < 1e-5:
            break
    weights = np.exp(-dist * beta[:, None])
    weights /= weights.sum(axis=1, keepdims=True)
    p = np.zeros((n, n))
    np.put_along_axis(p, indices, weights, axis=1)
    p += p.T
    p /= p.sum()
    return np.maximum(p, 1e-12).astype(np.float32)


class _Gradient:
    """The exact t-SNE gradient with reused ``N×N`` float32 buffers (memory bandwidth bounds it)."""

    def __init__(self, p: np.ndarray) -> None:
        self.p = p
        self.num = np.empty_like(p)
        self.scratch = np.empty_like(p)

    def __call__(self, y: np.ndarray, exaggeration: float) -> tuple[np.ndarray, float]:
        """The gradient at ``y`` and the normalisation ``Z`` of the output similarities."""
        num, scratch = self.num, self.scratch
        y32 = y.astype(np.float32)
        norms = np.einsum("ij,ij->i", y32, y32)
        np.matmul(y32, y32.T, out=num)
        np.multiply(num, -2.0, out=num)
        np.add(num, norms[:, None], out=num)
        np.add(num, norms[None, :] + 1.0, out=num)
        np.reciprocal(num, out=num)  # the Student-t kernel 1 / (1 + |yi - yj|²)
        np.fill_diagonal(num, 0.0)
        z = float(num.sum(dtype=np.float64))
        # (exaggeration·p - num / Z) · num, the weight of every pair in the gradient
        np.multiply(num, num, out=scratch)
        np.multiply(scratch, -1.0 / z, out=scratch)
        np.multiply(self.p, num, out=num)
        if exaggeration != 1.0:
            np.multiply(num, exaggeration, out=num)
        np.add(num, scratch, out=num)
        grad = num.sum(axis=1, dtype=np.float64)[:, None] * y - (num @ y32).astype(np.float64)
        return 4.0 * grad, z

    def kl(self, y: np.ndarray) -> float:
        """KL(P || Q) at ``y``."""
        y32 = y.astype(np.float32)
        norms = np.einsum("ij,ij->i", y32, y32)
        q = norms[:, None] + norms[None, :] - 2.0 * (y32 @ y32.T) + 1.0
        np.reciprocal(q, out=q)
        np.fill_diagonal(q, 0.0)
        q /= q.sum(dtype=np.float64)
        np.maximum(q, 1e-12, out=q)
        return float(np.sum(self.p * np.log(self.p / q), dtype=np.float64))


def tsne(
    x: np.ndarray,
    *,
    dims: int = 2,
    perplexity: float = 30.0,
    learning_rate: float | None = None,
    iterations: int = 500,
    seed: int = 0,
    progress: Progress | None = None,
    report_every: int = 10,
) -> np.ndarray:
    """t-SNE (van der Maaten and Hinton, 2008) with the exact gradient: O(N²) per iteration.

    Data of more than :data:`TSNE_PCA_DIMS` dimensions are first reduced by PCA. The input
    similarities use each point's ``3·perplexity`` nearest neighbours. The layout starts from
    the PCA projection (scaled to a tiny spread), runs ``min(250, iterations/4)`` iterations
    with early exaggeration 12 and momentum 0.5, then momentum 0.8, with per-coordinate gains
    (delta-bar-delta). The same data and seed always give the same layout.

    Args:
        x: ``N×D`` values; a few thousand rows at most, the cost grows with N².
        dims: 2 or 3.
        perplexity: The effective number of neighbours; lowered to ``(N - 1) / 3`` for small N.
        learning_rate: The step size; None picks ``max(N / 48, 50)`` (scikit-learn's "auto").
        iterations: Gradient steps.
        seed: Seeds the tiny random jitter added to the initial layout.
        progress: Called as ``progress(iteration, layout, kl)`` every ``report_every`` steps and
            at the end; returning False stops early (the current layout is returned).
        report_every: Steps between calls of ``progress``.

    Returns:
        ``N×dims`` float64 coordinates.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    if dims not in (2, 3):
        raise InvalidArgumentError(f"t-SNE lays out in 2 or 3 dimensions, not {dims}")
    if n < 2:
        return np.zeros((n, dims))
    if x.shape[1] > TSNE_PCA_DIMS:
        x = pca(x, TSNE_PCA_DIMS, seed=seed)[0]
    perplexity = float(min(max(perplexity, 1.0), max(1.0, (n - 1) / 3.0)))
    gradient = _Gradient(_affinities(x, perplexity))
    exaggeration = 12.0
    rate = float(learning_rate) if learning_rate else max(n / exaggeration / 4.0, 50.0)
    start = pca(x, dims)[0]
    if start.shape[1] < dims:
        start = np.pad(start, ((0, 0), (0, dims - start.shape[1])))
    spread = float(np.std(start[:, 0])) or 1.0
    rng = np.random.default_rng(seed)
    y = start / spread * 1e-4 + rng.standard_normal((n, dims)) * 1e-6
    update = np.zeros_like(y)
    gains = np.ones_like(y)
    early = min(250, iterations // 4)
    for it in range(1, iterations + 1):
        grad, _ = gradient(y, exaggeration if it <= early else 1.0)
        same = (grad > 0) == (update > 0)
        gains = np.maximum(np.where(same, gains * 0.8, gains + 0.2), 0.01)
        update = (0.5 if it <= early else 0.8) * update - rate * gains * grad
        y = y + update
        y -= y.mean(axis=0)
        due = progress is not None and (it % report_every == 0 or it == iterations)
        if due and not progress(it, y, gradient.kl(y)):
            break
    return y


def sklearn_available() -> bool:
    """Whether scikit-learn is importable (its t-SNE is then available as an alternative)."""
    return importlib.util.find_spec("sklearn") is not None


def umap_available() -> bool:
    """Whether ``umap-learn`` is importable (the projector then offers UMAP)."""
    return importlib.util.find_spec("umap") is not None


def umap_layout(  # pragma: no cover - umap-learn is optional and not a test dependency
    x: np.ndarray, *, dims: int = 2, neighbors: int = 15, seed: int = 0
) -> np.ndarray:
    """UMAP with ``umap-learn`` (an optional package).

    Raises:
        InvalidArgumentError: ``umap-learn`` is not installed.
    """
    if not umap_available():
        raise InvalidArgumentError("UMAP needs the optional package umap-learn (pip install umap-learn)")
    import umap

    model = umap.UMAP(n_components=dims, n_neighbors=min(neighbors, max(2, len(x) - 1)), random_state=seed)
    return np.asarray(model.fit_transform(x), dtype=np.float64)


def tsne_sklearn(
    x: np.ndarray,
    *,
    dims: int = 2,
    perplexity: float = 30.0,
    learning_rate: float | None = None,
    iterations: int = 500,
    seed: int = 0,
) -> np.ndarray:  # pragma: no cover - scikit-learn is optional and not a test dependency
    """t-SNE by scikit-learn (Barnes-Hut: larger samples than :func:`tsne`, no progress reports).

    Raises:
        InvalidArgumentError: scikit-learn is not installed.
    """
    if not sklearn_available():
        raise InvalidArgumentError("this t-SNE needs the optional package scikit-learn")
    import inspect

    from sklearn.manifold import TSNE

    x = np.asarray(x, dtype=np.float64)
    if x.shape[1] > TSNE_PCA_DIMS:
        x = pca(x, TSNE_PCA_DIMS, seed=seed)[0]
    steps = "max_iter" if "max_iter" in inspect.signature(TSNE).parameters else "n_iter"
    model = TSNE(
        n_components=dims,
        perplexity=float(min(perplexity, max(1.0, (len(x) - 1) / 3.0))),
        learning_rate=learning_rate or "auto",
        init="pca",
        random_state=seed,
        **{steps: max(250, iterations)},
    )
    return np.asarray(model.fit_transform(x), dtype=np.float64)
