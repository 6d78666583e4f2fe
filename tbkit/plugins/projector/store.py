"""The projector's server-side data: embeddings read through the DataProvider, kept in a small LRU.

Files are read with ``provider.list_plugin_files("projector")`` / ``read_plugin_file`` and
parsed by :mod:`tbkit.plugins.projector.decode`. A parsed embedding is cached per
``(run, tensor name)`` together with the sizes of its files, so a rewritten file is read
again; results derived from it (PCA) are cached on the entry.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tbkit.errors import DataError, NotFoundError
from tbkit.plugins.projector import decode
from tbkit.plugins.projector.metadata import CONFIG_FILENAME, PLUGIN_NAME
from tbkit.proto import projector_pb2
from tbkit.provider import DataProvider

__all__ = ["Embedding", "EmbeddingCache", "list_embeddings", "read_config"]


@dataclass
class Embedding:
    """One parsed embedding.

    Attributes:
        run: The run.
        name: The tensor name (``tag:step`` for files written by ``add_embedding``).
        tensor: ``N×D`` float64 values.
        columns: Metadata column names (empty without metadata).
        values: Per column, one string per point (padded with ``""`` or cut to N).
        sprite_path: The sprite's path in the run, or None.
        sprite_dim: ``(width, height)`` of one thumbnail, or None.
        warnings: What did not fit (e.g. a metadata file of a different length).
        derived: Results computed from the tensor (e.g. PCA), by key.
    """

    run: str
    name: str
    tensor: np.ndarray
    columns: list[str]
    values: list[list[str]]
    sprite_path: str | None
    sprite_dim: tuple[int, int] | None
    warnings: list[str] = field(default_factory=list)
    derived: dict[Any, Any] = field(default_factory=dict)


def _relative(path: str) -> str:
    return path.replace("\\", "/")


def read_config(provider: DataProvider, run: str) -> projector_pb2.ProjectorConfig | None:
    """The run's ``ProjectorConfig``, or None when the run has none.

    Raises:
        DataError: The config does not parse.
    """
    listed = provider.list_plugin_files(PLUGIN_NAME, runs=[run]).get(run, [])
    if CONFIG_FILENAME not in {f.path for f in listed}:
        return None
    data = provider.read_plugin_file(PLUGIN_NAME, run=run, path=CONFIG_FILENAME)
    try:
        return decode.parse_config(data)
    except ValueError as exc:
        raise DataError(str(exc), path=f"{run}/{CONFIG_FILENAME}") from exc


def list_embeddings(provider: DataProvider, runs: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """``{run: [embedding]}`` for every run with a projector config (a config that does not parse
    is left out). Each embedding: ``name``, ``step``, ``tensor_path``, ``shape`` (from the config's
    ``tensor_shape``, else None), ``metadata`` (bool), ``sprite`` (``{"width", "height"}`` or None),
    ``available`` (whether its tensor file is there to read)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run, files in sorted(provider.list_plugin_files(PLUGIN_NAME, runs=runs).items()):
        present = {f.path for f in files}
        try:
            config = read_config(provider, run)
        except (DataError, NotFoundError):
            continue
        if config is None:
            continue
        entries = []
        for info in config.embeddings:
            sprite_path = _relative(info.sprite.image_path)
            dim = list(info.sprite.single_image_dim)
            entries.append(
                {
                    "name": info.tensor_name,
                    "step": decode.step_of(info.tensor_name),
                    "tensor_path": _relative(info.tensor_path),
                    "shape": list(info.tensor_shape) if len(info.tensor_shape) == 2 else None,
                    "metadata": bool(info.metadata_path) and _relative(info.metadata_path) in present,
                    "sprite": {"width": dim[0], "height": dim[1]}
                    if sprite_path in present and len(dim) == 2
                    else None,
                    "available": bool(info.tensor_path) and _relative(info.tensor_path) in present,
                }
            )
        if entries:
            out[run] = entries
    return out


def _fit(rows: list[list[str]], columns: int, n: int) -> list[list[str]]:
    """Metadata rows as columns of exactly ``n`` strings."""
    rows = (rows + [[]] * n)[:n]
    return [[(r[c] if c < len(r) else "") for r in rows] for c in range(columns)]


class EmbeddingCache:
    """The last few parsed embeddings, keyed by run, tensor name and the sizes of their files.

    Loading holds the cache's lock, so requests arriving together for one embedding parse it once.
    """

    def __init__(self, capacity: int = 6) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[Any, ...], Embedding] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, provider: DataProvider, run: str, name: str) -> Embedding:
        """The embedding ``name`` of ``run``, parsed (from the cache when its files are unchanged).

        Raises:
            NotFoundError: No such run, embedding or tensor file (or a config that does not parse).
            DataError: The tensor file does not parse.
        """
        try:
            config = read_config(provider, run)
        except DataError as exc:  # a config that does not parse names no embedding
            raise NotFoundError(f"run {run!r} has no embedding {name!r} ({exc})") from exc
        info = next((e for e in config.embeddings if e.tensor_name == name), None) if config else None
        if info is None:
            raise NotFoundError(f"run {run!r} has no embedding {name!r}")
        sizes = {f.path: f.size for f in provider.list_plugin_files(PLUGIN_NAME, runs=[run]).get(run, [])}
        tensor_path = _relative(info.tensor_path)
        metadata_path = _relative(info.metadata_path) if info.metadata_path else None
        sprite_path = _relative(info.sprite.image_path) if info.sprite.image_path else None
        if tensor_path not in sizes:
            raise NotFoundError(f"embedding {name!r}: its tensor file {tensor_path!r} is not in run {run!r}")
        key = (run, name, tensor_path, sizes[tensor_path], metadata_path, sizes.get(metadata_path or ""))
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
            entry = self._load(provider, run, info, tensor_path, metadata_path, sprite_path, sizes)
            self._entries[key] = entry
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            return entry

    @staticmethod
    def _load(
        provider: DataProvider,
        run: str,
        info: projector_pb2.EmbeddingInfo,
        tensor_path: str,
        metadata_path: str | None,
        sprite_path: str | None,
        sizes: dict[str, int],
    ) -> Embedding:
        data = provider.read_plugin_file(PLUGIN_NAME, run=run, path=tensor_path)
        try:
            tensor = decode.parse_tensor_file(data, info)
        except (ValueError, UnicodeDecodeError) as exc:
            reason = f"embedding {info.tensor_name!r}: not a tensor file ({exc})"
            raise DataError(reason, path=f"{run}/{tensor_path}") from exc
        n = tensor.shape[0]
        columns: list[str] = []
        values: list[list[str]] = []
        warnings = []
        if metadata_path is not None and metadata_path in sizes:
            raw = provider.read_plugin_file(PLUGIN_NAME, run=run, path=metadata_path)
            try:
                columns, rows = decode.parse_metadata(raw)
            except UnicodeDecodeError:
                warnings.append(f"{metadata_path} is not UTF-8; no labels")
            else:
                if len(rows) != n:
                    warnings.append(f"{metadata_path} has {len(rows)} rows for {n} points")
                values = _fit(rows, len(columns), n)
        elif metadata_path is not None:
            warnings.append(f"the metadata file {metadata_path} is missing")
        dim = tuple(info.sprite.single_image_dim)
        sprite_ok = sprite_path is not None and sprite_path in sizes and len(dim) == 2
        return Embedding(
            run=run,
            name=info.tensor_name,
            tensor=tensor,
            columns=columns,
            values=values,
            sprite_path=sprite_path if sprite_ok else None,
            sprite_dim=(int(dim[0]), int(dim[1])) if sprite_ok else None,
            warnings=warnings,
        )
