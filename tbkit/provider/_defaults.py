"""The defaults of :class:`~tbkit.provider.DataProvider`'s methods beyond TensorBoard's set,
built on its abstract methods only (a provider holding NumPy series overrides them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tbkit.provider._types import (
    BlobColumns,
    DataClass,
    Keep,
    RunTagFilter,
    ScalarColumns,
    SeriesInfo,
    TensorColumns,
)

if TYPE_CHECKING:
    from tbkit.provider._interface import DataProvider

__all__ = ["blob_columns", "kept", "scalar_columns", "series_infos", "tensor_columns"]


def kept(listing: dict[str, dict[str, Any]], keep: Keep | None) -> RunTagFilter | None:
    """A filter covering the listed series ``keep`` accepts (None: keep is None, all of them)."""
    if keep is None:
        return None
    pairs = [(run, tag) for run, tags in listing.items() for tag in tags if keep(run, tag)]
    return RunTagFilter(runs={r for r, _ in pairs}, tags={t for _, t in pairs})


def series_infos(
    provider: DataProvider, data_class: DataClass, plugin: str, keep: Keep | None
) -> list[SeriesInfo]:
    """:meth:`DataProvider.series_info` of one data class and plugin, over the read methods."""
    wanted = (lambda run, tag: True) if keep is None else keep
    listing: dict[str, dict[str, Any]]
    found: list[tuple[str, str, list[tuple[int, float]], Any, int]] = []  # run, tag, times, last, longest
    if data_class is DataClass.SCALAR:
        listing = provider.list_scalars(plugin)
        for run, tags in provider.read_scalars(plugin, run_tag_filter=kept(listing, keep)).items():
            for tag, scalars in tags.items():
                if scalars and wanted(run, tag):
                    found.append((run, tag, [(p.step, p.wall_time) for p in scalars], scalars[-1].value, 0))
    elif data_class is DataClass.TENSOR:
        listing = provider.list_tensors(plugin)
        for run, tensor_tags in provider.read_tensors(plugin, run_tag_filter=kept(listing, keep)).items():
            for tag, tensors in tensor_tags.items():
                if tensors and wanted(run, tag):
                    found.append((run, tag, [(p.step, p.wall_time) for p in tensors], tensors[-1].numpy, 0))
    else:
        listing = provider.list_blob_sequences(plugin)
        read = provider.read_blob_sequences(plugin, run_tag_filter=kept(listing, keep))
        for run, blob_tags in read.items():
            for tag, sequences in blob_tags.items():
                if sequences and wanted(run, tag):
                    last = [provider.read_blob(ref.blob_key) for ref in sequences[-1].values]
                    longest = max(len(p.values) for p in sequences)
                    found.append((run, tag, [(p.step, p.wall_time) for p in sequences], last, longest))
    out = []
    for run, tag, times, value, longest in found:
        meta = listing.get(run, {}).get(tag)
        texts = (meta.plugin_content, meta.display_name, meta.description) if meta else (b"", "", "")
        out.append(SeriesInfo(
            run, tag, plugin, data_class, len(times), max(step for step, _ in times),
            max(wall for _, wall in times), (*times[-1], value), longest, *texts,
        ))  # fmt: skip
    return out


def scalar_columns(
    provider: DataProvider, plugin_name: str, keep: Keep | None
) -> dict[str, dict[str, ScalarColumns]]:
    """:meth:`DataProvider.read_scalar_columns` over ``list_scalars`` and ``read_scalars``."""
    filt = kept(provider.list_scalars(plugin_name), keep)
    out: dict[str, dict[str, ScalarColumns]] = {}
    for run, tags in provider.read_scalars(plugin_name, run_tag_filter=filt).items():
        for tag, points in tags.items():
            if points and (keep is None or keep(run, tag)):
                out.setdefault(run, {})[tag] = (
                    np.array([p.step for p in points], dtype=np.int64),
                    np.array([p.wall_time for p in points], dtype=np.float64),
                    np.array([p.value for p in points], dtype=np.float64),
                )
    return out


def tensor_columns(
    provider: DataProvider, plugin_name: str, keep: Keep | None
) -> dict[str, dict[str, TensorColumns]]:
    """:meth:`DataProvider.read_tensor_columns` over ``list_tensors`` and ``read_tensors``."""
    listing = provider.list_tensors(plugin_name)
    out: dict[str, dict[str, TensorColumns]] = {}
    read = provider.read_tensors(plugin_name, run_tag_filter=kept(listing, keep), downsample=None)
    for run, tags in read.items():
        for tag, points in tags.items():
            if points and (keep is None or keep(run, tag)):
                steps, walls = _times(points)
                out.setdefault(run, {})[tag] = (listing[run][tag].plugin_content, steps, walls,
                                                [p.numpy for p in points])  # fmt: skip
    return out


def blob_columns(
    provider: DataProvider, plugin_name: str, keep: Keep | None
) -> dict[str, dict[str, BlobColumns]]:
    """:meth:`DataProvider.read_blob_columns` over ``list_blob_sequences``, ``read_blob_sequences``
    and one ``read_blob`` per blob."""
    listing = provider.list_blob_sequences(plugin_name)
    out: dict[str, dict[str, BlobColumns]] = {}
    read = provider.read_blob_sequences(plugin_name, run_tag_filter=kept(listing, keep), downsample=None)
    for run, tags in read.items():
        for tag, points in tags.items():
            if points and (keep is None or keep(run, tag)):
                steps, walls = _times(points)
                blobs = [[provider.read_blob(ref.blob_key) for ref in p.values] for p in points]
                labelled = any(p.labels is not None for p in points)
                labels = [list(p.labels or ()) for p in points] if labelled else None
                out.setdefault(run, {})[tag] = (listing[run][tag].plugin_content, steps, walls, blobs, labels)
    return out


def _times(points: Any) -> tuple[np.ndarray, np.ndarray]:
    steps = np.array([p.step for p in points], dtype=np.int64)
    return steps, np.array([p.wall_time for p in points], dtype=np.float64)
