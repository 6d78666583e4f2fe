"""``tbkit report``: one self-contained HTML file; data embedded as the server computes it; nothing unsafe."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.cli.jsbundle import BundleError, bundle
from tbkit.plugins.scalars.query import minmax_indices, smooth
from tests.cli._logdirs import XSS_RUN, run_tbkit


def _report(logdir: Path, out: Path, *args: str) -> str:
    result = run_tbkit("report", "--logdir", str(logdir), "-o", str(out), *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Wrote {out}")
    return out.read_text(encoding="utf-8")


def _data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="tbkit-report-data">(.*?)</script>', page, re.S)
    assert match
    return json.loads(match.group(1))


def test_help() -> None:
    result = run_tbkit("report", "--help")
    assert result.returncode == 0
    for flag in ("--logdir", "-o", "--runs", "--tags", "--title", "--smoothing", "--points", "--images"):
        assert flag in result.stdout


def test_self_contained(rich_logdir: Path, tmp_path: Path) -> None:
    page = _report(rich_logdir, tmp_path / "r.html")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page, re.I)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    assert not re.search(r"<script[^>]*\ssrc=", page)
    assert "default-src 'none'" in page  # the page's CSP forbids every fetch
    assert "class LineChart" in page and "function drawPolyline" in page  # the server's chart code, inlined
    assert not re.search(r"^\s*(import|export)\s", page, re.M)  # no module syntax left


def test_scalars_embedded_as_the_server_computes_them(rich_logdir: Path, tmp_path: Path) -> None:
    page = _report(rich_logdir, tmp_path / "r.html", "--points", "20", "--smoothing", "0.8")
    data = _data(page)
    assert data["smoothing"] == 0.8
    frame = tbkit.read(str(rich_logdir)).scalars()
    assert {t["tag"] for t in data["scalars"]} == set(frame["tag"].astype(str))
    for entry in data["scalars"]:
        for series in entry["series"]:
            rows = frame[(frame.run == series["run"]) & (frame.tag == entry["tag"])].sort_values(
                "step", kind="stable"
            )
            values = rows["value"].to_numpy()
            keep = minmax_indices(values, 20)
            assert series["total"] == len(values) and series["shown"] == len(keep) <= 20
            assert series["step"] == rows["step"].to_numpy()[keep].tolist()
            shown = [None if not np.isfinite(v) else v for v in values[keep]]
            assert series["value"] == shown
            want = smooth(values, 0.8)[keep]
            got = np.array([np.nan if v is None else v for v in series["smoothed"]])
            finite = np.isfinite(want)
            assert np.allclose(got[finite], want[finite], rtol=1e-6) and np.isnan(got[~finite]).all()
    odd = next(s for t in data["scalars"] if t["tag"] == "odd" for s in t["series"] if s["run"] == "train")
    assert odd["nonfinite"] == {"0": "nan", "1": "inf", "2": "-inf"}


def test_latest_images_and_sanitized_text(rich_logdir: Path, tmp_path: Path) -> None:
    page = _report(rich_logdir, tmp_path / "r.html", "--images", "2")
    ld = tbkit.read(str(rich_logdir))
    images = ld.images()
    uris = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    last_two = images[images.step >= sorted(set(images.step))[-2]]
    assert sorted(base64.b64decode(u) for u in uris) == sorted(bytes(b) for b in last_two["data"])
    assert "<script>alert" not in page and "javascript:alert" not in page
    assert 'onerror="alert' not in page and "<img src=x" not in page
    assert "<strong>bold</strong>" in page  # Markdown rendered
    last_step = int(ld.text()["step"].max())
    assert page.count(f"step {last_step}</div>") == 2  # one latest text per run
    assert any(r["name"] == XSS_RUN for r in _data(page)["runs"])  # names travel as JSON, escaped


def test_selection_title_and_errors(rich_logdir: Path, tmp_path: Path) -> None:
    page = _report(
        rich_logdir, tmp_path / "sub" / "r.html", "--runs", "^train$", "--tags", "loss", "--title", "<T>"
    )
    data = _data(page)
    assert [r["name"] for r in data["runs"]] == ["train"]
    assert [t["tag"] for t in data["scalars"]] == ["loss"]
    assert "<title>&lt;T&gt;</title>" in page
    missing = run_tbkit("report", "--logdir", str(tmp_path / "none"), "-o", str(tmp_path / "x.html"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    usage = run_tbkit(
        "report", "--logdir", str(rich_logdir), "-o", str(tmp_path / "x.html"), "--smoothing", "1"
    )
    assert usage.returncode == 2


def test_bundler_inlines_modules_in_order_and_refuses_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("export const A = 1;\nexport function twice(x) { return 2 * x; }\n")
    (tmp_path / "b.js").write_text(
        'import { A, twice as t } from "./a.js";\nexport class B { v() { return t(A); } }\n'
    )
    (tmp_path / "main.js").write_text(
        'import { B } from "./b.js";\nimport * as a from "./a.js";\nwindow.out = 1;\n'
    )
    script = bundle(tmp_path / "main.js", root=tmp_path)
    assert script.index("a.js") < script.index("b.js") < script.index("main.js")
    assert "const { A, twice: t } = " in script and "return { A, twice };" in script
    assert not re.search(r"^\s*(import|export)\s", script, re.M)
    for source, message in [
        ('import x from "./a.js";\n', "default imports"),
        ('import { a } from "https://cdn.example/a.js";\n', "relative"),
        ('import { a } from "../outside.js";\n', "not a .js file under"),
        ("export default 1;\n", "cannot bundle"),
        ('const m = import("./a.js");\n', "dynamic"),
    ]:
        (tmp_path / "bad.js").write_text(source, encoding="utf-8")
        with pytest.raises(BundleError, match=message):
            bundle(tmp_path / "bad.js", root=tmp_path)
