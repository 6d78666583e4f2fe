"""Reading embeddings: a run's ``projector_config.pbtxt`` and the TSV and sprite files it names.

Not events: the projector is a file-based plugin. Its files are listed here
(:func:`plugin_files`: the config and the files it names below the run directory) and read
through the DataProvider (the embeddings frame, ``frames.py``; the server, ``store.py``). A
config that does not parse, a missing, outside or malformed tensor file, a missing metadata
file or sprite are reported as problems ``(path, reason)``; the other embeddings (and runs)
still read.

Example:
    >>> list_files("memory://no/run")
    ([], [])
"""

from __future__ import annotations

import io
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from google.protobuf import text_format

from tbkit.errors import StorageError
from tbkit.plugins.projector.metadata import CONFIG_FILENAME, PLUGIN_NAME
from tbkit.proto import projector_pb2
from tbkit.record import storage

__all__ = [
    "DATA_CLASS",
    "FILE_BASED",
    "LEGACY_FIELD",
    "PLUGIN_NAME",
    "decode",
    "embedding_record",
    "inside",
    "list_files",
    "parse_config",
    "parse_metadata",
    "parse_tensor_file",
    "parse_tensors",
    "plugin_files",
    "read_config",
    "step_of",
    "supported",
]

DATA_CLASS = "tensor"
LEGACY_FIELD = None
FILE_BASED = True
_STEP = re.compile(r":(\d+)$")

Problems = list[tuple[str, str]]


def supported(content: bytes) -> bool:
    """The projector writes no summaries; any payload is accepted."""
    return True


def decode(array: np.ndarray) -> np.ndarray:
    """The projector writes no summaries; a tensor is kept as it is."""
    return array


def inside(relative: str) -> bool:
    """Whether a path a config names lies below its run directory (relative, no ``..``, no drive)."""
    parts = relative.replace("\\", "/").split("/")
    return (
        bool(relative) and not relative.startswith(("/", "\\")) and ".." not in parts and ":" not in parts[0]
    )


def _resolve(run_dir: str, path: str) -> str:
    if not inside(path):
        return path
    return storage.join(run_dir, *path.replace("\\", "/").split("/"))


def read_config(
    run_dir: str, *, listed: Callable[[str], int | None] | None = None
) -> tuple[projector_pb2.ProjectorConfig | None, Problems]:
    """The run's ``ProjectorConfig``: None (and no problem) without a config file.

    A config that cannot be read or parsed gives None and a problem naming it. ``listed``
    gives the size of a path below the run directory as a listing shows it (None: not
    there), so that nothing but the config's bytes is asked; by default the storage is asked.
    """
    path = storage.join(run_dir, CONFIG_FILENAME)
    try:
        if listed is None:
            if not storage.exists(path):
                return None, []
            data = storage.read_bytes(path)
        else:
            size = listed(CONFIG_FILENAME)
            if size is None:
                return None, []
            data = storage.read_sized(path, size)
        config = parse_config(data)
    except StorageError as exc:
        return None, [(path, str(exc))]
    except ValueError as exc:
        return None, [(path, str(exc))]
    return config, []


def parse_config(data: bytes) -> projector_pb2.ProjectorConfig:
    """``projector_config.pbtxt`` parsed.

    Raises:
        ValueError: Not UTF-8, or not a ``ProjectorConfig`` in protobuf text format.

    Example:
        >>> parse_config(b'embeddings { tensor_name: "a" }').embeddings[0].tensor_name
        'a'
    """
    config = projector_pb2.ProjectorConfig()
    try:
        text_format.Parse(data.decode("utf-8"), config)
    except (text_format.ParseError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a ProjectorConfig in text format: {exc}") from exc
    return config


def _referenced(info: projector_pb2.EmbeddingInfo) -> list[str]:
    paths = [info.tensor_path, info.metadata_path, info.bookmarks_path, info.sprite.image_path]
    return [p for p in paths if p]


def plugin_files(
    logdir: str,
    runs: list[str],
    run_dir: Callable[[str], str],
    wants_run: Callable[[str], bool],
    *,
    tree: Mapping[str, int] | None = None,
) -> list[tuple[str, str]]:
    """``(run, path below the run directory)`` of every file the projector reads in ``runs``.

    The file-based plugins' one listing (see :mod:`tbkit.plugins.registry`): ``runs`` are
    where file-based plugins look (every run and the logdir itself), ``run_dir(run)`` their
    directories; the projector reads each run's config and the files it names. With
    ``tree`` (the logdir's whole listing, ``{path below logdir: size}``: object stores)
    whether a file exists is looked up there, not asked: only a config is read.

    Example:
        >>> plugin_files("memory://none", ["."], lambda run: "memory://none", lambda run: True)
        []
    """
    if tree is None:
        return [(run, relative) for run in runs for relative in list_files(run_dir(run))[0]]
    out = []
    for run in runs:
        listed = _listed_in(tree, "" if run == "." else run + "/")
        out.extend((run, relative) for relative in list_files(run_dir(run), listed=listed)[0])
    return out


def _listed_in(tree: Mapping[str, int], prefix: str) -> Callable[[str], int | None]:
    """The listed size of a path below the run directory (whose keys start with ``prefix``)."""
    return lambda relative: tree.get(posixpath.normpath(prefix + relative))


def list_files(
    run_dir: str, *, listed: Callable[[str], int | None] | None = None
) -> tuple[list[str], Problems]:
    """The config and the files it names that exist inside the run directory (``/`` separated).

    A config that exists but cannot be read or parsed is listed alone (with its problem).
    ``listed``: as :func:`read_config`'s (whether a file exists is then looked up, not asked).
    """
    config, problems = read_config(run_dir, listed=listed)
    if config is None:  # a config that is there but does not read is listed (its readers say why)
        return ([CONFIG_FILENAME] if problems else []), problems
    out = [CONFIG_FILENAME]
    for info in config.embeddings:
        for relative in _referenced(info):
            relative = relative.replace("\\", "/")
            if not inside(relative) or relative in out:
                continue
            there = (
                storage.exists(_resolve(run_dir, relative))
                if listed is None
                else listed(relative) is not None
            )
            if there:
                out.append(relative)
    return out, problems


def parse_tensors(data: bytes) -> np.ndarray:
    """``tensors.tsv`` as an ``N×D`` float64 array (float32 values written with 9 digits stay exact
    when cast back).

    Raises:
        ValueError: Rows of different lengths, or a value that is not a number.

    Example:
        >>> parse_tensors(b"0.5\\t2\\n1\\t-3\\n").tolist()
        [[0.5, 2.0], [1.0, -3.0]]
    """
    if data.strip():  # NumPy's C parser is about twice as fast; on failure the checks below say why
        try:
            return np.loadtxt(io.BytesIO(data), dtype=np.float64, delimiter="\t", comments=None, ndmin=2)
        except ValueError:
            pass
    lines = [line for line in data.decode("utf-8").split("\n") if line.strip()]
    rows = [line.rstrip("\r").split("\t") for line in lines]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise ValueError(f"rows have different numbers of values: {sorted(widths)}")
    try:
        return np.array([[float(x) for x in r] for r in rows], dtype=np.float64).reshape(len(rows), -1)
    except ValueError as exc:
        raise ValueError(f"not a number: {exc}") from exc


def parse_tensor_file(data: bytes, info: projector_pb2.EmbeddingInfo) -> np.ndarray:
    """The tensor file of ``info``: a TSV, or raw little-endian float32 when the path ends in ``.bytes``
    (TensorBoard's binary form, shaped by ``tensor_shape``).

    Raises:
        ValueError: A malformed TSV, or a binary file whose size does not match ``tensor_shape``.
    """
    if not info.tensor_path.endswith(".bytes"):
        return parse_tensors(data)
    shape = tuple(info.tensor_shape)
    if len(shape) != 2 or len(data) != 4 * shape[0] * shape[1]:
        raise ValueError(f"{len(data)} bytes do not hold float32 values of tensor_shape {list(shape)}")
    return np.frombuffer(data, dtype="<f4").reshape(shape).astype(np.float64)


def parse_metadata(data: bytes) -> tuple[list[str], list[list[str]]]:
    """``metadata.tsv`` as ``(columns, rows)``: with several columns the first line is the header
    (TensorBoard's rule); a single column has no header and is named ``label``.

    Example:
        >>> parse_metadata(b"name\\tid\\na\\t1\\n")
        (['name', 'id'], [['a', '1']])
    """
    lines = data.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if lines and "\t" in lines[0]:
        header = lines[0].split("\t")
        return header, [line.split("\t") for line in lines[1:]]
    return ["label"], [[line] for line in lines]


def step_of(tensor_name: str) -> int | None:
    """The step in a ``name:00007`` tensor name (as ``add_embedding`` names them), else None.

    Example:
        >>> step_of("words:00007"), step_of("words")
        (7, None)
    """
    found = _STEP.search(tensor_name)
    return int(found.group(1)) if found else None


def _step(info: projector_pb2.EmbeddingInfo) -> int | None:
    return step_of(info.tensor_name)


def embedding_record(
    info: projector_pb2.EmbeddingInfo,
    read: Callable[[str], bytes],
    where: Callable[[str], str],
    problems: Problems,
) -> dict[str, Any] | None:
    """One embedding of a config, its files read with ``read(path as the config names it)``
    (which raises StorageError for a file it cannot give); None when its tensor cannot be read.

    The record has ``tag`` (the tensor name), ``step`` (from a ``name:00007`` tensor name,
    else None), ``shape``, ``tensor`` (float64 ``N×D``), ``metadata_columns`` and
    ``metadata_rows`` (None without metadata), ``sprite`` (PNG bytes or None),
    ``sprite_image_dim`` (``(width, height)`` of one thumbnail) and ``tensor_path``. What
    cannot be read is appended to ``problems`` as ``(where(path), reason)``.
    """
    if not info.tensor_path:
        reason = f"embedding {info.tensor_name!r} has no tensor_path (checkpoint tensors are not read)"
        problems.append((where(CONFIG_FILENAME), reason))
        return None
    try:
        tensor = parse_tensor_file(read(info.tensor_path), info)
    except StorageError as exc:
        problems.append((where(info.tensor_path), f"embedding {info.tensor_name!r}: {exc}"))
        return None
    except (ValueError, UnicodeDecodeError) as exc:
        problems.append(
            (where(info.tensor_path), f"embedding {info.tensor_name!r}: not a tensor file ({exc})")
        )
        return None
    columns: list[str] | None = None
    rows: list[list[str]] | None = None
    if info.metadata_path:
        metadata_file = where(info.metadata_path)
        try:
            columns, rows = parse_metadata(read(info.metadata_path))
            if len(rows) != len(tensor):
                problems.append((metadata_file, f"embedding {info.tensor_name!r}: {len(rows)} metadata rows "
                                 f"for {len(tensor)} points"))  # fmt: skip
        except StorageError as exc:
            problems.append((metadata_file, f"embedding {info.tensor_name!r}: {exc}"))
        except UnicodeDecodeError as exc:
            problems.append((metadata_file, f"embedding {info.tensor_name!r}: metadata is not UTF-8 ({exc})"))
    sprite = None
    if info.sprite.image_path:
        try:
            sprite = read(info.sprite.image_path)
        except StorageError as exc:
            problems.append(
                (where(info.sprite.image_path), f"embedding {info.tensor_name!r}: sprite missing ({exc})")
            )
    dim = tuple(info.sprite.single_image_dim) if info.sprite.single_image_dim else None
    return {
        "tag": info.tensor_name, "step": _step(info), "shape": tuple(tensor.shape), "tensor": tensor,
        "metadata_columns": columns, "metadata_rows": rows, "sprite": sprite, "sprite_image_dim": dim,
        "tensor_path": info.tensor_path,
    }  # fmt: skip
