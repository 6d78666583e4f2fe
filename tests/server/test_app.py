"""The core routes of create_app: listing, headers, static files, errors, path prefix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import tbkit
from tbkit.plugins.colors import assign_colors
from tbkit.provider import InMemoryProvider
from tbkit.server.app import CSP, MAX_CONTENT_LENGTH, create_app
from tests.server._logdirs import XSS_RUN, XSS_TAG


def test_runs_sorted_by_start_time_with_colours(client: Any) -> None:
    runs = client.get("/data/runs").json
    assert [r["name"] for r in runs] == ["train", "eval", XSS_RUN]  # the order they were created in
    assert [r["start_time"] for r in runs] == sorted(r["start_time"] for r in runs)
    want = assign_colors(r["name"] for r in runs)  # palette by natural order of the names
    for r in runs:
        assert re.fullmatch(r"#[0-9a-f]{6}", r["color"])
        assert r["color"] == want[r["name"]]
    assert len({r["color"] for r in runs}) == len(runs)


def test_environment(tbkit_logdir: Path, make_client: Any) -> None:
    env = make_client(tbkit_logdir, window_title="My <b>title</b>").get("/data/environment").json
    assert env["data_location"] == str(tbkit_logdir)
    assert env["window_title"] == "My <b>title</b>"
    assert env["version"] == tbkit.__version__
    assert env["static_url"].startswith("/static/v")
    assert env["plotly_url"] == env["static_url"] + "/vendor/plotly.min.js"
    assert env["logdirs"] == [{"name": "", "path": str(tbkit_logdir)}]


def test_environment_lists_every_named_logdir(tmp_path: Path) -> None:
    from tbkit.reader.multi import MultiLogdirProvider

    logdirs = [("a", str(tmp_path / "one")), ("<b>", str(tmp_path / "two,three"))]
    env = create_app(MultiLogdirProvider(logdirs)).test_client().get("/data/environment").json
    assert env["logdirs"] == [{"name": n, "path": p} for n, p in logdirs]
    assert env["data_location"] == ",".join(f"{n}:{p}" for n, p in logdirs)
    unnamed = MultiLogdirProvider([("", str(tmp_path))])
    assert create_app(unnamed).test_client().get("/data/environment").json["logdirs"] == [
        {"name": "", "path": str(tmp_path)}
    ]


def test_environment_logdirs_of_a_provider_without_a_location() -> None:
    class Nowhere(InMemoryProvider):
        def data_location(self) -> str:
            return ""

    assert create_app(Nowhere({})).test_client().get("/data/environment").json["logdirs"] == []
    memory = create_app(InMemoryProvider({})).test_client().get("/data/environment").json
    assert memory["logdirs"] == [{"name": "", "path": "memory"}]


def test_tags_lists_every_series_with_its_plugin(client: Any) -> None:
    rows = client.get("/data/tags").json
    found = {(r["run"], r["tag"]): r for r in rows}
    assert found["train", "loss"]["plugin"] == "scalars"
    assert found["train", "loss"]["data_class"] == "scalar"
    assert found["train", "loss"]["max_step"] == 4999
    assert found["train", "weights"]["data_class"] == "tensor"
    assert found["train", "pictures"]["data_class"] == "blob_sequence"
    assert found["train", "notes/text_summary"]["plugin"] == "text"  # torch's tag
    assert found[XSS_RUN, XSS_TAG]["max_wall_time"] == 900.0


def test_plugins_listing_enables_tabs_with_data() -> None:
    app = create_app(InMemoryProvider({"r": {"loss": {"points": [(0, 1.0, 2.0)]}}}))
    listing = app.test_client().get("/data/plugins_listing").json
    assert list(listing)[:2] == ["timeseries", "scalars"]
    assert listing["timeseries"]["enabled"] and listing["scalars"]["enabled"]
    assert not listing["images"]["enabled"] and not listing["distributions"]["enabled"]
    for entry in listing.values():
        if entry["script"] is not None:
            assert app.test_client().get(entry["script"]).status_code == 200


def test_reload_state_default(client: Any) -> None:
    assert client.get("/data/reload_state").json == {"generation": 0, "last_reload": 0.0, "loading": False}


def test_security_headers_on_every_kind_of_response(client: Any) -> None:
    for url in ["/", "/data/runs", "/data/nope", "/favicon.ico", "/static/index.html"]:
        response = client.get(url)
        assert response.headers["Content-Security-Policy"] == CSP, url
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP.split("script-src")[1].split(";")[0]
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"


def test_json_escapes_html_characters_but_keeps_the_names(client: Any) -> None:
    response = client.get("/data/runs")
    assert b"<" not in response.data and b">" not in response.data
    assert XSS_RUN in [r["name"] for r in json.loads(response.data)]
    tags = client.get("/data/tags")
    assert b"<script" not in tags.data
    assert XSS_TAG in {r["tag"] for r in tags.json}


def test_index_is_templated_and_not_cached(client: Any) -> None:
    env = client.get("/data/environment").json
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.headers["Cache-Control"] == "no-cache"
    text = page.get_data(as_text=True)
    assert "{{" not in text
    assert env["static_url"] in text


def test_window_title_is_escaped_in_the_page(tbkit_logdir: Path, make_client: Any) -> None:
    text = make_client(tbkit_logdir, window_title="<script>alert(1)</script>").get("/").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_versioned_static_files_are_cached_long(client: Any) -> None:
    base = client.get("/data/environment").json["static_url"]
    versioned = client.get(f"{base}/app.js")
    plain = client.get("/static/app.js")
    assert versioned.status_code == plain.status_code == 200
    assert versioned.data == plain.data
    assert versioned.mimetype == "text/javascript"
    assert (
        "immutable" in versioned.headers["Cache-Control"]
        and "max-age=31536000" in versioned.headers["Cache-Control"]
    )
    assert plain.headers["Cache-Control"] == "no-cache"


def test_plotly_is_served_from_the_installed_package(client: Any) -> None:
    import importlib.util

    url = client.get("/data/environment").json["plotly_url"]
    response = client.get(url)
    origin = Path(next(iter(importlib.util.find_spec("plotly").submodule_search_locations)))
    assert response.status_code == 200
    assert response.data == (origin / "package_data" / "plotly.min.js").read_bytes()
    assert "immutable" in response.headers["Cache-Control"]


def test_favicon(client: Any) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype.startswith("image/")


@pytest.mark.parametrize(
    "url",
    [
        "/static/../../etc/passwd",
        "/static/..%2f..%2fetc/passwd",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%5c..%5cetc%5cpasswd",
        "/static//etc/passwd",
        "/static/%2fetc/passwd",
        "/static/vendor/../../app.py",
        "/static/plugins/scalars/../routes.py",
        "/static/plugins/scalars/../../../server/app.py",
        "/static/plugins/..%2f..%2f..%2fetc/passwd",
        "/static/vendor/plotly.js",
        "/static/.hidden",
        "/static/app.py",
        "/static/../app.py",
        "/static/%00index.html",
        "/static/plugins/nosuchplugin/x.js",
    ],
)
def test_static_traversal_is_refused(client: Any, url: str) -> None:
    response = client.get(url)
    assert response.status_code in (400, 404), url
    assert b"root:" not in response.data and b"def create_app" not in response.data


def test_static_symlink_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    from tbkit.server.assets import safe_file

    root = tmp_path / "static"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (root / "ok.js").write_text("ok")
    (root / "link.js").symlink_to(tmp_path / "secret.txt")
    assert safe_file(root, ["ok.js"]) == (root / "ok.js").resolve()
    assert safe_file(root, ["link.js"]) is None
    assert safe_file(root, ["..", "secret.txt"]) is None


def test_unknown_route_is_a_json_404(client: Any) -> None:
    response = client.get("/data/no_such_route")
    assert response.status_code == 404
    assert set(response.json) == {"error"}


def test_wrong_method_is_a_json_405(client: Any) -> None:
    response = client.delete("/data/runs")
    assert response.status_code == 405 and "error" in response.json


def test_request_body_size_is_bounded(client: Any) -> None:
    body = b'{"tag": "loss", "pad": "' + b"x" * MAX_CONTENT_LENGTH + b'"}'
    response = client.post("/data/plugin/scalars/scalars", data=body, content_type="application/json")
    assert response.status_code == 413 and "error" in response.json


def test_tbkit_errors_map_to_their_http_code() -> None:
    class Broken(InMemoryProvider):
        def list_runs(self) -> list:
            raise tbkit.errors.NotFoundError("gone away")

    client = create_app(Broken({})).test_client()
    response = client.get("/data/runs")
    assert response.status_code == 404 and response.json == {"error": "gone away"}


def test_unexpected_errors_are_json_500(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(InMemoryProvider):
        def list_runs(self) -> list:
            raise RuntimeError("boom")

    response = create_app(Broken({})).test_client().get("/data/runs")
    assert response.status_code == 500 and "boom" in response.json["error"]


def test_path_prefix(tbkit_logdir: Path, make_client: Any) -> None:
    client = make_client(tbkit_logdir, path_prefix="/tb/")
    assert client.get("/tb/data/runs").status_code == 200
    assert client.get("/data/runs").status_code == 404
    redirect = client.get("/tb")
    assert redirect.status_code == 308 and redirect.headers["Location"].endswith("/tb/")
    env = client.get("/tb/data/environment").json
    assert env["path_prefix"] == "/tb" and env["static_url"].startswith("/tb/static/")
    assert client.get(env["static_url"] + "/app.js").status_code == 200
    page = client.get("/tb/").get_data(as_text=True)
    assert env["static_url"] in page
    assert client.get("/data/runs").headers["Content-Security-Policy"] == CSP
