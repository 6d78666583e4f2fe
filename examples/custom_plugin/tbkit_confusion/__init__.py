"""An example tbkit plugin: confusion matrices as a data kind of their own, from one folder.

Everything of the kind lives in this package, registered once under the ``tbkit.plugins``
entry-point group (see ``pyproject.toml``), and no tbkit file names it:

* the write side: :func:`confusion_summary` (pure) and :func:`log_confusion` (``summary.py``);
* the read side: ``decode.py`` (refuses payloads of a newer version);
* the frame: ``tbkit.read(logdir).frame("confusion")`` (``frames.py``);
* the serve side: a Flask blueprint under ``/data/plugin/confusion_matrix/`` and a
  "Confusion" tab (``routes.py``), whose page is ``static/confusion.js``.

This module stays light (the registry imports it to read :data:`PLUGINS`): the write side is
imported on first use.
"""

from __future__ import annotations

from typing import Any

from tbkit.plugins.spec import Plugin

__all__ = ["PLUGINS", "PLUGIN_NAME", "VERSION", "confusion_summary", "log_confusion"]

PLUGIN_NAME = "confusion_matrix"
VERSION = 1

PLUGINS = (
    Plugin(
        name=PLUGIN_NAME,
        data_class="tensor",
        decoder="tbkit_confusion.decode",
        frames={"confusion": "tbkit_confusion.frames:confusion_frame"},
        routes="tbkit_confusion.routes",
        dedicated_frame=True,  # Logdir.tensors() leaves its series to frame("confusion")
    ),
)


def __getattr__(name: str) -> Any:
    if name in ("confusion_summary", "log_confusion"):
        from tbkit_confusion import summary

        return getattr(summary, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
