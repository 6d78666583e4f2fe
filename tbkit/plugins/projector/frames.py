"""The embeddings frame: every readable embedding of every run, from the provider's plugin files.

Only files below a run directory are read (those the provider lists): a config naming an
absolute path, or one outside the run with ``..``, gets a problem for it, as the server
does not serve such a file either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tbkit.errors import NotFoundError, StorageError
from tbkit.plugins._frames import pandas, records_frame, run_path
from tbkit.plugins.projector import decode
from tbkit.plugins.projector.metadata import CONFIG_FILENAME
from tbkit.provider import DataProvider

if TYPE_CHECKING:
    import pandas as pd

    from tbkit.plugins.spec import Plugin

__all__ = ["embeddings_frame"]

_COLUMNS = ["run", "tag", "step", "shape", "tensor", "metadata", "sprite", "sprite_image_dim", "tensor_path"]


def embeddings_frame(provider: DataProvider, plugin: Plugin) -> pd.DataFrame:
    """run, tag (tensor name), step (nullable), shape, tensor (float64 N×D), metadata (a frame of
    string columns, or None), sprite (PNG bytes or None), sprite_image_dim ((w, h) or None),
    tensor_path: the embeddings of each run's ``projector_config.pbtxt``.

    What cannot be read becomes a problem naming its file
    (:meth:`~tbkit.provider.DataProvider.report_plugin_file_problems`).
    """
    listing = provider.list_plugin_files(plugin.name)
    wanted = [(run, f.path) for run in sorted(listing) for f in listing[run]]
    files = dict(zip(wanted, provider.read_plugin_files(plugin.name, files=wanted), strict=True))
    records: list[dict[str, Any]] = []
    problems: list[tuple[str, str, str]] = []
    for run in sorted(listing):
        found: list[tuple[str, str]] = []
        for record in _run_embeddings(provider, plugin.name, run, files, found):
            columns, rows = record.pop("metadata_columns"), record.pop("metadata_rows")
            records.append({"run": run, **record, "metadata": _metadata_frame(columns, rows)})
        problems.extend((run, path, reason) for path, reason in found)
    provider.report_plugin_file_problems(plugin.name, problems=problems)
    frame = records_frame(records, _COLUMNS)
    frame["step"] = frame["step"].astype("Int64")
    return frame


def _run_embeddings(
    provider: DataProvider,
    plugin_name: str,
    run: str,
    files: dict[tuple[str, str], bytes | NotFoundError],
    problems: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    """The embedding records of ``run``'s config (none without one), its problems appended."""

    def where(path: str) -> str:
        relative = path.replace("\\", "/")
        return run_path(provider, run, relative) if decode.inside(relative) else path

    def read(path: str) -> bytes:
        relative = path.replace("\\", "/")
        if not decode.inside(relative):
            raise StorageError("outside the run directory, not read", path=path)
        data = files.get((run, relative))
        if data is None:  # not listed: missing, or refused by the path policy; the provider says which
            try:
                data = provider.read_plugin_file(plugin_name, run=run, path=relative)
            except NotFoundError as exc:
                raise StorageError(str(exc), path=where(path)) from exc
        if isinstance(data, NotFoundError):
            raise StorageError(str(data), path=where(path))
        return data

    if (run, CONFIG_FILENAME) not in files:
        return []
    try:
        config = decode.parse_config(read(CONFIG_FILENAME))
    except (StorageError, ValueError) as exc:
        problems.append((where(CONFIG_FILENAME), str(exc)))
        return []
    out = []
    for info in config.embeddings:
        record = decode.embedding_record(info, read, where, problems)
        if record is not None:
            out.append(record)
    return out


def _metadata_frame(columns: list[str] | None, rows: list[list[str]] | None) -> Any:
    if columns is None or rows is None:
        return None
    width = len(columns)
    fitted = [(r + [""] * width)[:width] for r in rows]
    return pandas().DataFrame(fitted, columns=columns, dtype="string")
