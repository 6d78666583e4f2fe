"""The page names the landing modules up front: their closure is found, and every link answers."""

from __future__ import annotations

import re
from pathlib import Path

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app
from tbkit.server.preload import module_closure, preload_links


def _finder(root: Path):
    return lambda p: root / p if (root / p).is_file() else None


def test_the_closure_follows_static_imports_only_each_once(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "a.js").write_text(
        'import * as b from "./b.js";\nimport "./lib/side.js";\nconst later = await import("./lazy.js");\n'
    )
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nexport { x } from "./lib/x.js";\n')
    (tmp_path / "lib" / "x.js").write_text('import { b } from "../b.js";\nexport const x = 1;\n')
    (tmp_path / "lib" / "side.js").write_text("// no imports\n")
    (tmp_path / "lazy.js").write_text("export const z = 1;\n")
    found = module_closure(["a.js", "missing.js"], _finder(tmp_path))
    assert found == ["a.js", "b.js", "lib/side.js", "lib/x.js"]


def test_links_are_escaped() -> None:
    assert preload_links(['x".js'], "/s") == '<link rel="modulepreload" href="/s/x&quot;.js">'


def test_the_page_preloads_the_shell_and_time_series_modules_and_each_answers() -> None:
    client = create_app(InMemoryProvider({})).test_client()
    page = client.get("/").get_data(as_text=True)
    links = re.findall(r'<link rel="modulepreload" href="([^"]+)">', page)
    names = {link.rsplit("/", 1)[1] for link in links}
    assert {"api.js", "runs.js", "pagedgrid.js", "scalarcard.js", "chart.js"} <= names
    assert "app.js" not in names  # the page's own script
    assert len(links) == len(set(links))
    for link in links:
        response = client.get(link)
        assert response.status_code == 200, link
        assert "javascript" in response.content_type
    assert "{{preload}}" not in page
