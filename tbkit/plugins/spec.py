"""The plugin contract as one object: what a data kind is, and where its parts live.

Each kind's folder declares its plugins in its ``__init__.py`` as ``PLUGINS = (Plugin(...),
...)``; :mod:`tbkit.plugins.registry` lists those folders and the ``tbkit.plugins`` entry
point group. The spec names modules by dotted path (nothing is imported by declaring it), so
a kind's ``__init__.py`` stays as light as this module: no Flask, pandas or NumPy.

Example:
    >>> p = Plugin("my_kind", "tensor", decoder="my_package.decode")
    >>> p.name, p.data_class, p.routes, p.file_based
    ('my_kind', 'tensor', None, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["DataClassName", "Plugin"]

DataClassName = Literal["scalar", "tensor", "blob_sequence"]
_DATA_CLASSES = ("scalar", "tensor", "blob_sequence")


@dataclass(frozen=True)
class Plugin:
    """One data kind (or one dashboard) as tbkit's core sees it.

    Attributes:
        name: The ``plugin_name`` written in the files' ``SummaryMetadata`` (for a
            dashboard-only plugin such as ``timeseries``: its route prefix).
        data_class: The data class of its series when a file's metadata leaves it unknown
            (``"scalar"``, ``"tensor"`` or ``"blob_sequence"``); None for a dashboard-only
            plugin that owns no series.
        decoder: Dotted module of the read side (today's ``plugins/<kind>/decode.py``, see
            :mod:`tbkit.plugins.registry` for what it provides), or None.
        legacy_field: The TF1 ``Summary.Value`` field its decoder migrates (e.g.
            ``"histo"``), or None.
        event_field: The ``Event`` field (outside any summary) whose bytes it keeps as a
            blob series (``"graph_def"``, ``"tagged_run_metadata"``), or None.
        file_based: True when it reads plain files from the run directory (through
            ``list_plugin_files``) rather than event-file series.
        frames: Frame kind → ``"module:function"`` of the function building that frame,
            which ``tbkit.read(logdir).frame(kind)`` calls (imported then, not before) as
            ``builder(provider, plugin) -> pandas.DataFrame``: ``provider`` is the logdir's
            :class:`~tbkit.provider.DataProvider` (read every point: ``downsample=None``),
            ``plugin`` this spec (its ``name`` is the plugin name to ask the provider
            for). The frame should start with ``run, tag, step, wall_time``; it is cached
            until the logdir reloads new data (a ``file_based`` plugin's: until
            ``reload()``), and ``tbkit export`` exports it under the frame kind's name.
            A built-in kind's ``Logdir`` method (e.g. ``hparams()``) is then a one-line
            ``self.frame(kind)``; keyword options of the method reach the builder.
        routes: Dotted module of the serve side (``blueprint`` and ``TABS``), or None when
            it has no dashboard of its own.
        dedicated_frame: True when it has a frame of its own, so ``Logdir.tensors()``
            leaves its series out unless asked by name.
        columns: The columns after ``run, tag, step, wall_time`` of its generic kind frame
            (``tbkit.plugins._frames:kind_frame`` named in ``frames``: rows from its
            decoder's ``rows(value)`` of each tensor point, or all points' cells at once
            from its ``frame_columns(values)`` when it has one, or ``blob_rows(blobs,
            labels)`` of each blob sequence point); empty when it has none.
        media_extension: The file extension ``tbkit export`` gives the binary cells of the
            frame named after it when their bytes show no format of their own (e.g.
            ``"pb"`` for serialized protos); None: ``bin``.
    """

    name: str
    data_class: DataClassName | None
    decoder: str | None = None
    legacy_field: str | None = None
    event_field: str | None = None
    file_based: bool = False
    frames: Mapping[str, str] = field(default_factory=dict, hash=False)
    routes: str | None = None
    dedicated_frame: bool = False
    columns: tuple[str, ...] = ()
    media_extension: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a plugin needs a name")
        if self.data_class is not None and self.data_class not in _DATA_CLASSES:
            raise ValueError(f"plugin {self.name!r}: data_class must be one of {_DATA_CLASSES}")
        for kind, target in self.frames.items():
            if ":" not in target:
                raise ValueError(f"plugin {self.name!r}: frame {kind!r} must be 'module:function'")
