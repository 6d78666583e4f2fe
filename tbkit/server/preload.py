"""The modules the first page needs, named up front so that the browser fetches them at once.

An ES module's imports are found only once it has arrived and been parsed, so the shell's
modules and the landing dashboard's came in a chain of five round trips (``app.js``, then
``api.js`` and its siblings, then the dashboard, its grid, its cards, their charts). The
page names every module of that chain in ``<link rel="modulepreload">`` tags instead
(:func:`preload_links`), found by following the static ``import``/``export ... from``
statements of the entry modules; a dynamic ``import()`` is not followed.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["module_closure", "preload_links"]

# `import ... from "./x.js"`, `import "./x.js"`, `export ... from "./x.js"`: relative specifiers only.
_STATIC_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;'"]*?['"](\.{1,2}/[^'"]+\.js)['"]""", re.MULTILINE)


def module_closure(entries: Iterable[str], find: Callable[[str], Path | None]) -> list[str]:
    """Every module the ``entries`` import statically, the entries first, each once.

    Args:
        entries: Module paths below the static base URL (``"app.js"``).
        find: The file of such a path, or None when there is none.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "a.js").write_text('import { b } from "./b.js";\\nconst c = import("./c.js");')
        >>> _ = (root / "b.js").write_text('export * from "./d/e.js";')
        >>> module_closure(["a.js"], lambda p: root / p if (root / p).is_file() else None)
        ['a.js', 'b.js', 'd/e.js']
    """
    seen: list[str] = []
    todo = list(entries)
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        file = find(path)
        if file is None:
            continue
        seen.append(path)
        text = file.read_text(encoding="utf-8", errors="replace")
        for spec in _STATIC_IMPORT.findall(text):
            todo.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), spec)))
    return seen


def preload_links(modules: Iterable[str], static_url: str) -> str:
    """``<link rel="modulepreload">`` tags for ``modules`` below ``static_url``, one per line."""
    return "\n".join(
        f'<link rel="modulepreload" href="{html.escape(f"{static_url}/{path}")}">' for path in modules
    )
