"""The DataProvider implemented over a flat list of :class:`~tbkit.provider.Series`.

:class:`SeriesProvider` answers every listing and read of the interface from what its
subclass's :meth:`~SeriesProvider.series` returns (downsampling, run/tag filters, blob keys),
and listings from :meth:`~SeriesProvider.series_info`, which a subclass may answer without
materializing any points. Re-exported by :mod:`tbkit.provider`.
"""

from __future__ import annotations

import abc
import base64
import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from tbkit.errors import NotFoundError
from tbkit.provider._interface import DataProvider
from tbkit.provider._sampling import downsample_indices, extremes
from tbkit.provider._types import (
    BlobColumns,
    BlobReference,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    DataClass,
    Keep,
    RunTagFilter,
    ScalarColumns,
    ScalarDatum,
    ScalarTimeSeries,
    Series,
    SeriesInfo,
    TensorColumns,
    TensorDatum,
    TensorTimeSeries,
)

__all__ = ["SeriesProvider"]


def _blob_key(run: str, tag: str, point: int, index: int) -> str:
    raw = json.dumps([run, tag, point, index], separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _parse_blob_key(key: str) -> tuple[str, str, int, int]:
    try:
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        run, tag, point, index = json.loads(raw)
        if not (isinstance(run, str) and isinstance(tag, str) and type(point) is int and type(index) is int):
            raise ValueError
    except (ValueError, TypeError) as exc:
        raise NotFoundError(f"no such blob: {key!r}") from exc
    return run, tag, point, index


def _texts(s: SeriesInfo) -> tuple[bytes, str, str]:
    return s.plugin_content, s.description, s.display_name


def _nest(items: Iterable[tuple[str, str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for run, tag, value in items:
        out.setdefault(run, {})[tag] = value
    return out


class SeriesProvider(DataProvider):
    """The DataProvider over whatever :meth:`series` returns; subclasses supply the data.

    Listings go through :meth:`series_info`, which subclasses may answer without
    materializing any points; reads pass their run/tag filter down to :meth:`series`.
    """

    @abc.abstractmethod
    def series(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[Series]:
        """The current series, optionally only of one data class and plugin, and those ``keep`` accepts."""

    def series_info(
        self, data_class: DataClass | None = None, plugin_name: str | None = None, keep: Keep | None = None
    ) -> list[SeriesInfo]:
        """What listings need of every non-empty series ``keep`` accepts (default: from :meth:`series`)."""
        return [SeriesInfo.of(s) for s in self.series(data_class, plugin_name, keep) if len(s.steps)]

    def file_based_plugins(self) -> Iterable[str]:
        """The plugins whose data are files (:meth:`list_plugin_files`), not series: none here.

        The provider names no kind: a subclass that reads plugin files answers this (the
        reader's providers ask the plugin registry).
        """
        return ()

    def series_plugins(self) -> set[str]:
        """The plugins of the non-empty series (from :meth:`series_info`; a subclass that can
        tell them without listing every series answers this itself)."""
        return {s.plugin_name for s in self.series_info() if s.plugin_name}

    def list_plugins(self) -> list[str]:
        names = self.series_plugins()
        names.update(p for p in self.file_based_plugins() if any(self.list_plugin_files(p).values()))
        return sorted(names)

    def _select(self, data_class: DataClass, plugin_name: str, filt: RunTagFilter | None) -> list[Series]:
        keep = None if filt is None else filt.matches
        return [s for s in self.series(data_class, plugin_name, keep) if len(s.steps)]

    def _infos(self, data_class: DataClass, plugin_name: str, filt: RunTagFilter | None) -> list[SeriesInfo]:
        return [
            s for s in self.series_info(data_class, plugin_name) if filt is None or filt.matches(s.run, s.tag)
        ]

    def list_scalars(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, ScalarTimeSeries]]:
        return _nest(
            (s.run, s.tag, ScalarTimeSeries(s.max_step, s.max_wall_time, *_texts(s), float(s.last[2])))
            for s in self._infos(DataClass.SCALAR, plugin_name, run_tag_filter)
        )

    def read_scalars(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[ScalarDatum]]]:
        out = []
        for s in self._select(DataClass.SCALAR, plugin_name, run_tag_filter):
            keep = downsample_indices(s.steps, downsample)
            steps, walls = s.steps[keep].tolist(), s.wall_times[keep].tolist()
            values = np.asarray(s.values, dtype=np.float64)[keep].tolist()
            out.append((s.run, s.tag, [ScalarDatum(*p) for p in zip(steps, walls, values, strict=True)]))
        return _nest(out)

    def read_last_scalars(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, ScalarDatum]]:
        return _nest(
            (s.run, s.tag, ScalarDatum(s.last[0], s.last[1], float(s.last[2])))
            for s in self._infos(DataClass.SCALAR, plugin_name, run_tag_filter)
        )

    def read_scalar_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, ScalarColumns]]:
        out: dict[str, dict[str, ScalarColumns]] = {}
        for s in self.series(DataClass.SCALAR, plugin_name, keep):
            if len(s.steps):
                values = np.asarray(s.values, dtype=np.float64)
                columns = (np.asarray(s.steps, dtype=np.int64), np.asarray(s.wall_times), values)
                out.setdefault(s.run, {})[s.tag] = columns
        return out

    def read_tensor_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, TensorColumns]]:
        out: dict[str, dict[str, TensorColumns]] = {}
        for s in self.series(DataClass.TENSOR, plugin_name, keep):
            if len(s.steps):
                steps, walls = np.asarray(s.steps, dtype=np.int64), np.asarray(s.wall_times)
                out.setdefault(s.run, {})[s.tag] = (s.plugin_content, steps, walls, list(s.values))
        return out

    def read_blob_columns(
        self, plugin_name: str, *, keep: Keep | None = None
    ) -> dict[str, dict[str, BlobColumns]]:
        out: dict[str, dict[str, BlobColumns]] = {}
        for s in self.series(DataClass.BLOB_SEQUENCE, plugin_name, keep):
            if len(s.steps):
                steps, walls = np.asarray(s.steps, dtype=np.int64), np.asarray(s.wall_times)
                blobs = [[bytes(b) for b in point] for point in s.values]
                labels = None if s.labels is None else [list(point) for point in s.labels]
                out.setdefault(s.run, {})[s.tag] = (s.plugin_content, steps, walls, blobs, labels)
        return out

    def read_scalar_extremes(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, tuple[float | None, float | None, int]]]:
        return _nest(
            (s.run, s.tag, extremes(np.asarray(s.values, dtype=np.float64)))
            for s in self._select(DataClass.SCALAR, plugin_name, run_tag_filter)
        )

    def list_tensors(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, TensorTimeSeries]]:
        return _nest(
            (s.run, s.tag, TensorTimeSeries(s.max_step, s.max_wall_time, *_texts(s)))
            for s in self._infos(DataClass.TENSOR, plugin_name, run_tag_filter)
        )

    def read_tensors(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[TensorDatum]]]:
        out = []
        for s in self._select(DataClass.TENSOR, plugin_name, run_tag_filter):
            keep = downsample_indices(s.steps, downsample).tolist()
            data = [
                TensorDatum(int(s.steps[i]), float(s.wall_times[i]), np.asarray(s.values[i])) for i in keep
            ]
            out.append((s.run, s.tag, data))
        return _nest(out)

    def list_blob_sequences(
        self, plugin_name: str, *, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, BlobSequenceTimeSeries]]:
        return _nest(
            (s.run, s.tag, BlobSequenceTimeSeries(s.max_step, s.max_wall_time, s.max_length, *_texts(s)))
            for s in self._infos(DataClass.BLOB_SEQUENCE, plugin_name, run_tag_filter)
        )

    def read_blob_sequences(
        self, plugin_name: str, *, downsample: int | None = None, run_tag_filter: RunTagFilter | None = None
    ) -> dict[str, dict[str, list[BlobSequenceDatum]]]:
        out = []
        for s in self._select(DataClass.BLOB_SEQUENCE, plugin_name, run_tag_filter):
            data = []
            for i in downsample_indices(s.steps, downsample).tolist():
                refs = tuple(BlobReference(_blob_key(s.run, s.tag, i, j)) for j in range(len(s.values[i])))
                labels = None if s.labels is None else tuple(s.labels[i])
                data.append(BlobSequenceDatum(int(s.steps[i]), float(s.wall_times[i]), refs, labels))
            out.append((s.run, s.tag, data))
        return _nest(out)

    def read_blob(self, blob_key: str) -> bytes:
        run, tag, point, index = _parse_blob_key(blob_key)
        for s in self.series(DataClass.BLOB_SEQUENCE, keep=lambda r, t: r == run and t == tag):
            if 0 <= point < len(s.values):
                blobs = s.values[point]
                if 0 <= index < len(blobs):
                    return bytes(blobs[index])
        raise NotFoundError(f"no such blob: {blob_key!r}")
