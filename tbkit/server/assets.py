"""The files the browser loads: the shell UI, each plugin's dashboard files, and plotly.js.

Files are served only from these directories (``tbkit/server/static/``, each route
module's ``static/``) and the installed ``plotly`` package's ``plotly.min.js``; a path
with an empty, ``.``, ``..`` or hidden segment, or one resolving (through symlinks)
outside its directory, is refused. :attr:`StaticFiles.version` names the versioned URL
space: a hash of every file's name, size and modification time, and plotly's version.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path

from tbkit._version import __version__

__all__ = ["CONTENT_TYPES", "SHELL_DIR", "StaticFiles", "content_type", "plotly_path", "safe_file"]

SHELL_DIR = Path(__file__).resolve().parent / "static"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".gif": "image/gif",
    ".jpg": "image/jpeg",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}


def content_type(path: Path) -> str:
    """The Content-Type of a static file, by its suffix (unknown: ``application/octet-stream``)."""
    return CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")


def safe_file(root: Path, parts: Iterable[str]) -> Path | None:
    """The file ``root/parts...`` when it is a regular file inside ``root``; else None.

    Example:
        >>> safe_file(SHELL_DIR, ["..", "app.py"]) is None
        True
    """
    parts = list(parts)
    if not parts:
        return None
    for part in parts:
        if part in ("", ".", "..") or part.startswith(".") or "\\" in part or "\x00" in part or ":" in part:
            return None
    try:
        base = root.resolve()
        found = base.joinpath(*parts).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if not found.is_relative_to(base) or not found.is_file():
        return None
    return found


def plotly_path() -> Path | None:
    """``plotly.min.js`` of the installed ``plotly`` package (found without importing it), or None."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "package_data" / "plotly.min.js"
    return path if path.is_file() else None


def _plotly_version() -> str:
    try:
        return importlib.metadata.version("plotly")
    except importlib.metadata.PackageNotFoundError:
        return ""


class StaticFiles:
    """The static directories of one app: the shell's and each plugin's (by route module name)."""

    def __init__(self, plugin_dirs: Mapping[str, Path], shell_dir: Path = SHELL_DIR) -> None:
        self.shell_dir = shell_dir
        self.plugin_dirs = dict(plugin_dirs)
        self.plotly = plotly_path()
        self.version = self._version()

    def _version(self) -> str:
        digest = hashlib.sha256(f"{__version__}|{_plotly_version()}".encode())
        for root in [self.shell_dir, *self.plugin_dirs.values()]:
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*")):
                if path.is_file():
                    stat = path.stat()
                    digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
        return f"v{__version__}-{digest.hexdigest()[:8]}"

    def find(self, parts: list[str]) -> tuple[Path | None, bool]:
        """The file for the URL path segments after ``/static/``, and whether the URL was versioned."""
        versioned = bool(parts) and parts[0] == self.version
        if versioned:
            parts = parts[1:]
        if parts[:1] == ["plugins"]:
            root = self.plugin_dirs.get(parts[1]) if len(parts) > 2 else None
            return (safe_file(root, parts[2:]) if root is not None else None), versioned
        if parts[:1] == ["vendor"]:
            return (self.plotly if parts[1:] == ["plotly.min.js"] else None), versioned
        return safe_file(self.shell_dir, parts), versioned

    def script(self, plugin: str, names: Iterable[str]) -> str | None:
        """The path (below the static base URL) of the first of ``names`` in ``plugin``'s directory."""
        root = self.plugin_dirs.get(plugin)
        if root is None:
            return None
        for name in names:
            if safe_file(root, [name]) is not None:
                return f"plugins/{plugin}/{name}"
        return None
