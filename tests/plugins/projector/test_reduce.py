"""PCA and t-SNE in NumPy; nearest neighbours; background jobs; the faster tensor parsing."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tbkit.errors import InvalidArgumentError, NotFoundError
from tbkit.plugins.projector import decode, jobs, neighbors, reduce
from tbkit.proto import projector_pb2


def _clusters(n: int = 150, d: int = 20, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    return (rng.standard_normal((k, d)) * 5)[labels] + rng.standard_normal((n, d)), labels


def _agreement(layout: np.ndarray, labels: np.ndarray, k: int = 5) -> float:
    """The share of each point's ``k`` nearest layout neighbours with its label."""
    dist = ((layout[:, None] - layout[None]) ** 2).sum(-1)
    np.fill_diagonal(dist, np.inf)
    nearest = np.argsort(dist, axis=1)[:, :k]
    return float((labels[nearest] == labels[:, None]).mean())


def _reference_pca(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    centred = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    return (u * s)[:, :k], (s**2 / np.sum(s**2))[:k]


def _same_up_to_sign(a: np.ndarray, b: np.ndarray, tol: float = 1e-6) -> None:
    for c in range(a.shape[1]):
        sign = np.sign(a[:, c] @ b[:, c]) or 1.0
        np.testing.assert_allclose(a[:, c], sign * b[:, c], rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(200, 12), (15, 40)])  # D ≤ N (covariance) and N < D (Gram)
def test_pca_is_the_svd_projection(shape: tuple[int, int]) -> None:
    x = np.random.default_rng(1).standard_normal(shape) @ np.diag(np.linspace(3, 0.1, shape[1]))
    coords, ratios = reduce.pca(x, 5)
    want, want_ratios = _reference_pca(x, 5)
    _same_up_to_sign(coords, want, 1e-8)
    np.testing.assert_allclose(ratios, want_ratios, rtol=1e-10)


def test_pca_sign_is_fixed_and_components_bounded() -> None:
    x, _ = _clusters()
    coords, ratios = reduce.pca(x, 50)
    assert coords.shape == (150, 20) and ratios.shape == (20,)
    assert np.sum(ratios) == pytest.approx(1.0)
    biggest = np.abs(coords).argmax(axis=0)
    assert (coords[biggest, np.arange(20)] > 0).all()
    np.testing.assert_allclose(
        reduce.pca(-x, 3)[0], coords[:, :3], atol=1e-9
    )  # the sign rule, not the data's


def test_pca_randomized_matches_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 60)) @ np.diag(10 * 0.7 ** np.arange(60))
    exact, exact_ratios = reduce.pca(x, 4)
    monkeypatch.setattr(reduce, "EXACT_PCA_LIMIT", 10)
    approx, approx_ratios = reduce.pca(x, 4)
    _same_up_to_sign(approx, exact, 1e-5)
    np.testing.assert_allclose(approx_ratios, exact_ratios, rtol=1e-6)


def test_pca_degenerate_inputs() -> None:
    coords, ratios = reduce.pca(np.ones((4, 3)), 2)
    np.testing.assert_array_equal(coords, np.zeros((4, 2)))
    np.testing.assert_array_equal(ratios, [0.0, 0.0])
    assert reduce.pca(np.zeros((1, 5)), 3)[0].shape == (1, 1)
    with pytest.raises(InvalidArgumentError):
        reduce.pca(np.zeros(5), 2)


def test_sample_indices() -> None:
    np.testing.assert_array_equal(reduce.sample_indices(5, 10), np.arange(5))
    picked = reduce.sample_indices(100, 10, seed=3)
    assert len(set(picked.tolist())) == 10 and (np.diff(picked) > 0).all() and picked.max() < 100
    np.testing.assert_array_equal(picked, reduce.sample_indices(100, 10, seed=3))


def test_tsne_separates_clusters_and_is_deterministic() -> None:
    x, labels = _clusters()
    layout = reduce.tsne(x, iterations=300, perplexity=15, seed=1)
    assert layout.shape == (150, 2) and np.isfinite(layout).all()
    assert _agreement(layout, labels) > 0.97
    np.testing.assert_array_equal(layout, reduce.tsne(x, iterations=300, perplexity=15, seed=1))


def test_tsne_in_3d_of_wide_data_reports_progress() -> None:
    x, labels = _clusters(120, 80)  # more than TSNE_PCA_DIMS dimensions: reduced by PCA first
    seen: list[tuple[int, float]] = []
    layout = reduce.tsne(x, dims=3, iterations=200, progress=lambda it, y, kl: seen.append((it, kl)) or True)
    assert layout.shape == (120, 3) and _agreement(layout, labels) > 0.95
    assert [it for it, _ in seen] == list(range(10, 201, 10))
    assert seen[-1][1] < seen[0][1] and all(kl >= 0 for _, kl in seen)  # the KL divergence falls


def test_tsne_stops_when_progress_says_so() -> None:
    x, _ = _clusters(40, 5)
    calls: list[int] = []
    layout = reduce.tsne(
        x, iterations=1000, report_every=5, progress=lambda it, y, kl: calls.append(it) or it < 20
    )
    assert calls == [5, 10, 15, 20] and layout.shape == (40, 2)


def test_tsne_small_inputs() -> None:
    assert reduce.tsne(np.zeros((1, 3))).shape == (1, 2)
    layout = reduce.tsne(
        np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]), iterations=50, perplexity=30
    )
    assert layout.shape == (4, 2) and np.isfinite(layout).all()  # perplexity lowered to (N - 1) / 3
    with pytest.raises(InvalidArgumentError):
        reduce.tsne(np.zeros((5, 2)), dims=4)


def test_affinities_fit_the_perplexity() -> None:
    x, _ = _clusters(90, 6)
    p = reduce._affinities(x, 10.0).astype(np.float64)
    assert p.shape == (90, 90) and p.sum() == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(p, p.T, rtol=1e-6)


# -- nearest neighbours ------------------------------------------------------------------------


def test_nearest_matches_brute_force() -> None:
    x, _ = _clusters(50, 7)
    for metric in neighbors.METRICS:
        for index in (0, 25):
            found = neighbors.nearest(x, index, 6, metric)
            if metric == "euclidean":
                dist = np.array([np.linalg.norm(x[i] - x[index]) for i in range(50)])
            else:
                dist = np.array(
                    [1 - x[i] @ x[index] / np.linalg.norm(x[i]) / np.linalg.norm(x[index]) for i in range(50)]
                )
            dist[index] = np.inf
            assert [i for i, _ in found] == np.argsort(dist)[:6].tolist()
            np.testing.assert_allclose([d for _, d in found], np.sort(dist)[:6], atol=1e-12)


def test_nearest_ties_zero_vectors_and_nan() -> None:
    x = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 0.0], [3.0, 0.0], [np.nan, 1.0]])
    assert neighbors.nearest(x, 0, 4, "cosine") == [
        (1, 0.0),
        (3, 0.0),
        (2, 1.0),
        (4, pytest.approx(np.nan, nan_ok=True)),
    ]
    assert neighbors.nearest(x, 2, 2, "cosine") == [(0, 1.0), (1, 1.0)]
    assert [i for i, _ in neighbors.nearest(x, 1, 4, "euclidean")] == [0, 3, 2, 4]
    with pytest.raises(InvalidArgumentError):
        neighbors.nearest(x, 5, 1, "cosine")
    with pytest.raises(InvalidArgumentError):
        neighbors.distances(x, 0, "manhattan")


# -- jobs --------------------------------------------------------------------------------------


def test_job_reports_progress_and_result() -> None:
    registry = jobs.JobRegistry()

    def compute(report: jobs.Report) -> np.ndarray:
        for it in (1, 2):
            assert report(it, np.full((2, 2), it))
        return np.full((2, 2), 9.0)

    job = registry.start(compute, iterations=2, info={"method": "x"}).wait(10)
    state, iteration, layout, error = job.snapshot()
    assert (state, iteration, error) == ("done", 2, "") and layout.dtype == np.float32
    np.testing.assert_array_equal(layout, np.full((2, 2), 9.0))
    assert registry.get(job.id) is job and job.info == {"method": "x"} and job.finished is not None


def test_job_errors_and_unknown_ids() -> None:
    registry = jobs.JobRegistry()
    job = registry.start(lambda report: 1 / 0, iterations=1).wait(10)
    assert job.state == "error" and "ZeroDivisionError" in job.error
    with pytest.raises(NotFoundError):
        registry.get("nope")


def test_starting_beyond_max_running_cancels_the_oldest() -> None:
    registry = jobs.JobRegistry()

    def forever(report: jobs.Report) -> np.ndarray:
        while report(0, np.zeros((1, 2))):
            pass
        return np.zeros((1, 2))

    started = [registry.start(forever, iterations=1) for _ in range(jobs.MAX_RUNNING + 1)]
    assert started[0].wait(10).state == "cancelled"
    assert all(j.state == "running" for j in started[1:])
    registry.cancel_all()
    assert all(j.wait(10).state == "cancelled" for j in started)


def test_finished_jobs_are_forgotten_beyond_max_kept() -> None:
    registry = jobs.JobRegistry()
    first = registry.start(lambda report: np.zeros((1, 2)), iterations=1).wait(10)
    for _ in range(jobs.MAX_KEPT + 1):
        registry.start(lambda report: np.zeros((1, 2)), iterations=1).wait(10)
    with pytest.raises(NotFoundError):
        registry.get(first.id)


# -- parsing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "want"),
    [
        (b"1\t2\r\n3\t4\r\n", [[1, 2], [3, 4]]),
        (b"1\t2\n\n3\t4\n", [[1, 2], [3, 4]]),
        (b"5\n", [[5]]),
        (b"1e-3\t-inf\n", [[1e-3, -np.inf]]),
    ],
)
def test_parse_tensors(data: bytes, want: list[list[float]]) -> None:
    np.testing.assert_array_equal(decode.parse_tensors(data), want)


@pytest.mark.parametrize(
    ("data", "message"), [(b"1\t2\n3\n", "different numbers"), (b"1\t#\n", "not a number")]
)
def test_parse_tensors_errors(data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode.parse_tensors(data)


def test_parse_tensor_file_bytes_and_config() -> None:
    info = projector_pb2.EmbeddingInfo(tensor_path="x.bytes", tensor_shape=[2, 2])
    values = np.array([[1, 2], [3, 4]], dtype="<f4")
    np.testing.assert_array_equal(decode.parse_tensor_file(values.tobytes(), info), values)
    with pytest.raises(ValueError, match="tensor_shape"):
        decode.parse_tensor_file(values.tobytes()[:12], info)
    with pytest.raises(ValueError, match="ProjectorConfig"):
        decode.parse_config(b"embeddings {")
    assert decode.step_of("a:00012") == 12 and decode.step_of("a") is None


def test_a_job_nobody_polls_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = jobs.JobRegistry()
    monkeypatch.setattr(jobs, "ABANDONED_AFTER", 0.0)

    def forever(report: jobs.Report) -> np.ndarray:
        while report(1, np.zeros((1, 2))):
            time.sleep(0.001)
        return np.zeros((1, 2))

    job = registry.start(forever, iterations=10)
    assert job.wait(10).state == "cancelled" and job.iteration == 1
