"""The Flask app of ``tbkit serve``: core routes, static files, headers, errors.

:func:`create_app` builds the app over any :class:`~tbkit.provider.DataProvider`; the
plugins' blueprints come from :func:`tbkit.plugins.registry.route_modules` (this module
names no plugin). The HTTP contract is ``docs/http_api.md``.

Example:
    >>> from tbkit.provider import InMemoryProvider
    >>> app = create_app(InMemoryProvider({"train": {"loss": {"points": [(0, 1.0, 0.5)]}}}))
    >>> app.test_client().get("/data/runs").json[0]["name"]
    'train'
"""

from __future__ import annotations

import html
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request, send_file
from werkzeug.exceptions import HTTPException

from tbkit._version import __version__
from tbkit.errors import TbkitError
from tbkit.plugins import registry, web
from tbkit.provider import DataProvider
from tbkit.server.assets import StaticFiles, content_type, safe_file
from tbkit.server.compress import (
    MIN_SIZE,
    CompressedFiles,
    add_vary,
    chosen_encoding,
    compress_response,
    compressible,
)
from tbkit.server.hosts import HostCheck, host_name
from tbkit.server.preload import module_closure, preload_links
from tbkit.server.reload import ReloadState

__all__ = ["CSP", "MAX_CONTENT_LENGTH", "SECURITY_HEADERS", "create_app", "security_headers"]

MAX_CONTENT_LENGTH = 1 << 20
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
    "style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
_LONG_CACHE = "public, max-age=31536000, immutable"
_FALLBACK_ICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect width="16" height="16" rx="3" fill="#f57c00"/></svg>'
)
_PLACEHOLDER_PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{title}}</title></head>'
    "<body><p>tbkit: the UI files are missing; the JSON API is under <code>data/</code>.</p></body></html>"
)
_log = logging.getLogger("tbkit.server")


def _normalize_prefix(prefix: str) -> str:
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
    if any(part in (".", "..") for part in prefix.split("/")):
        raise TbkitError(f"invalid path prefix {prefix!r}")
    return prefix


# Sent with every response, errors included (waitress' own, such as 431, get them from serve.py).
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cache-Control", "no-cache"),
)


def security_headers(frame_ancestors: Sequence[str] = ()) -> tuple[tuple[str, str], ...]:
    """:data:`SECURITY_HEADERS`, or, when pages of ``frame_ancestors`` may embed the app (a
    notebook's origin), with ``frame-ancestors 'self' <origins>`` and no ``X-Frame-Options``
    (which cannot name an origin)."""
    if not frame_ancestors:
        return SECURITY_HEADERS
    csp = CSP.replace("frame-ancestors 'none'", "frame-ancestors " + " ".join(["'self'", *frame_ancestors]))
    return tuple(
        (name, csp if name == "Content-Security-Policy" else value)
        for name, value in SECURITY_HEADERS
        if name != "X-Frame-Options"
    )


def _with_headers(response: Response, headers: Iterable[tuple[str, str]]) -> Response:
    for name, value in headers:
        response.headers.setdefault(name, value)
    return response


def _security_headers(response: Response) -> Response:
    return _with_headers(response, current_app.config.get(_HEADERS_KEY, SECURITY_HEADERS))


def _compress(response: Response) -> Response:
    return compress_response(response, request.headers.get("Accept-Encoding"))


_HEADERS_KEY = "TBKIT_SECURITY_HEADERS"
_Headers = tuple[tuple[str, str], ...]


class _HostMiddleware:
    """Answer only requests whose ``Host`` names this server (see :mod:`tbkit.server.hosts`)."""

    def __init__(
        self, app: Callable[..., Any], check: HostCheck, headers: tuple[tuple[str, str], ...]
    ) -> None:
        self.app = app
        self.check = check
        self.headers = headers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        if self.check.allows(host):
            return self.app(environ, start_response)
        message = (
            f"this server does not answer to the host name {host_name(host or '')!r} (a defence against "
            "DNS rebinding); to allow it, start it with --allowed_hosts NAME"
        )
        return _with_headers(web.json_response({"error": message}, 403), self.headers)(
            environ, start_response
        )


class _PrefixMiddleware:
    """Serve the app under ``prefix`` only: ``/p/x`` reaches ``/x``; ``/p`` redirects to ``/p/``."""

    def __init__(self, app: Callable[..., Any], prefix: str, headers: _Headers) -> None:
        self.app = app
        self.prefix = prefix
        self.headers = headers

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        if path == self.prefix:
            response = Response(status=308, headers={"Location": self.prefix + "/"})
        elif path.startswith(self.prefix + "/"):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + self.prefix
            environ["PATH_INFO"] = path[len(self.prefix) :]
            return self.app(environ, start_response)
        else:
            response = web.json_response(
                {"error": f"not found (the app is served under {self.prefix}/)"}, 404
            )
        return _with_headers(response, self.headers)(environ, start_response)


def _error_response(exc: Exception) -> Response:
    if isinstance(exc, TbkitError):
        return web.json_response({"error": str(exc)}, exc.http_code)
    if isinstance(exc, HTTPException):
        return web.json_response({"error": exc.description or exc.name}, exc.code or 500)
    _log.exception("tbkit: internal error")
    return web.json_response({"error": f"internal error: {type(exc).__name__}: {exc}"}, 500)


def _number(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _all_tags(provider: DataProvider) -> list[dict[str, Any]]:
    rows = []
    for plugin in provider.list_plugins():
        listings = (
            ("scalar", provider.list_scalars(plugin)),
            ("tensor", provider.list_tensors(plugin)),
            ("blob_sequence", provider.list_blob_sequences(plugin)),
        )
        for data_class, listing in listings:
            for run, tags in listing.items():
                for tag, meta in tags.items():
                    rows.append(
                        {
                            "run": run,
                            "tag": tag,
                            "plugin": plugin,
                            "data_class": data_class,
                            "display_name": meta.display_name,
                            "description": meta.description,
                            "max_step": meta.max_step,
                            "max_wall_time": _number(meta.max_wall_time),
                        }
                    )
    rows.sort(key=lambda r: (r["run"], r["tag"], r["plugin"]))
    return rows


def _static_dir(module: Any) -> Path:
    given = getattr(module, "STATIC_DIR", None)
    return Path(given) if given is not None else Path(module.__file__).resolve().parent / "static"


def create_app(
    provider: DataProvider,
    *,
    window_title: str = "",
    path_prefix: str = "",
    samples_per_plugin: Mapping[str, int | None] | None = None,
    reload_state: ReloadState | None = None,
    allowed_hosts: HostCheck | None = None,
    frame_ancestors: Sequence[str] = (),
) -> Flask:
    """The Flask app serving ``provider`` (see ``docs/http_api.md``).

    Args:
        provider: Where the data come from; the app reads through it only.
        window_title: The browser window's title (default: "TensorBoard (tbkit)").
        path_prefix: Serve everything under this path (e.g. ``/tb``), for reverse proxies.
        samples_per_plugin: Points served per series by default, by plugin name (None: all).
        reload_state: The live-reload counters the UI polls (default: a fixed state, loaded).
        allowed_hosts: Answer only requests whose ``Host`` this check allows (403 for the
            others); None answers every host (``tbkit.server.serve`` always sets one).
        frame_ancestors: Origins whose pages may embed the app in a frame (a notebook's);
            by default none may.

    Returns:
        The app; serve it with any WSGI server (``tbkit.server.serve`` uses waitress).
    """
    prefix = _normalize_prefix(path_prefix)
    state = reload_state if reload_state is not None else ReloadState(0.0)
    modules = registry.route_modules()
    files = StaticFiles({name: _static_dir(m) for name, m in modules.items()})
    static_url = f"{prefix}/static/{files.version}"

    app = Flask(__name__, static_folder=None)
    app.url_map.merge_slashes = False  # "//" is refused by the static route, never redirected
    app.config["MAX_CONTENT_LENGTH"] = MAX_CONTENT_LENGTH
    app.config["JSON_SORT_KEYS"] = False
    headers = app.config[_HEADERS_KEY] = security_headers(frame_ancestors)
    app.extensions[web.EXTENSION] = web.AppState(
        provider=provider,
        window_title=window_title or "TensorBoard (tbkit)",
        path_prefix=prefix,
        samples_per_plugin=dict(samples_per_plugin or {}),
        reload_interval=state.interval,
    )
    app.after_request(_security_headers)
    app.after_request(_compress)  # runs first: the after-request functions run last-added first
    compressed = CompressedFiles()
    app.register_error_handler(Exception, _error_response)
    for name, module in modules.items():
        app.register_blueprint(module.blueprint, url_prefix=f"/data/plugin/{name}", name=f"plugin_{name}")

    # The shell and its landing dashboard (the first tab), preloaded by the page.
    landing = ["app.js"]
    for name, module in list(modules.items())[:1]:
        for tab in module.TABS[:1]:
            landing += [f"{tab.name}.js", files.script(name, [f"{tab.name}.js", "index.js"]) or ""]
    preloads = preload_links(module_closure(landing, lambda p: files.find(p.split("/"))[0])[1:], static_url)

    @app.get("/")
    def index() -> Response:
        page = safe_file(files.shell_dir, ["index.html"])
        text = page.read_text(encoding="utf-8") if page is not None else _PLACEHOLDER_PAGE
        title = html.escape(app.extensions[web.EXTENSION].window_title)
        for key, value in (("{{preload}}", preloads), ("{{static}}", static_url), ("{{prefix}}", prefix)):
            text = text.replace(key, value)
        return Response(text.replace("{{title}}", title), mimetype="text/html")

    @app.get("/favicon.ico")
    def favicon() -> Response:
        for name in ("favicon.ico", "favicon.svg"):
            found = safe_file(files.shell_dir, [name])
            if found is not None:
                return _file_response(found, versioned=False, compressed=compressed)
        return Response(_FALLBACK_ICON, mimetype="image/svg+xml")

    @app.get("/static/<path:subpath>")
    def static_file(subpath: str) -> Response:
        found, versioned = files.find(subpath.split("/"))
        if found is None:
            return web.json_response({"error": "not found"}, 404)
        return _file_response(found, versioned=versioned, compressed=compressed)

    @app.get("/data/environment")
    def environment() -> Response:
        return web.json_response(
            {
                "data_location": provider.data_location(),
                "logdirs": [{"name": name, "path": path} for name, path in provider.data_locations()],
                "window_title": app.extensions[web.EXTENSION].window_title,
                "version": __version__,
                "reload_interval": state.interval,
                "path_prefix": prefix,
                "static_url": static_url,
                "plotly_url": f"{static_url}/vendor/plotly.min.js" if files.plotly is not None else None,
            }
        )

    @app.get("/data/runs")
    def runs() -> Response:
        listed = sorted(
            provider.list_runs(),
            key=lambda r: (r.start_time is None, r.start_time or 0.0, r.run_name),
        )
        colors = web.run_colors(r.run_name for r in listed)
        return web.json_response(
            [
                {"name": r.run_name, "start_time": _number(r.start_time), "color": colors[r.run_name]}
                for r in listed
            ]
        )

    @app.get("/data/plugins_listing")
    def plugins_listing() -> Response:
        with_data = set(provider.list_plugins())
        files_of: dict[str, bool] = {}

        def has_data(plugin: str) -> bool:  # series, or the files of a file-based plugin
            if plugin not in files_of:
                files_of[plugin] = plugin in with_data or bool(provider.list_plugin_files(plugin))
            return files_of[plugin]

        listing = {}
        for name, module in modules.items():
            for tab in module.TABS:
                script = files.script(name, [f"{tab.name}.js", "index.js"])
                listing[tab.name] = {
                    "enabled": not tab.data_plugins or any(has_data(p) for p in tab.data_plugins),
                    "tab_name": tab.tab_name,
                    "script": f"{static_url}/{script}" if script else None,
                }
        return web.json_response(listing)

    @app.get("/data/tags")
    def tags() -> Response:
        return web.json_response(_all_tags(provider))

    @app.get("/data/reload_state")
    def reload_state_route() -> Response:
        return web.json_response(state.as_dict())

    if prefix:
        app.wsgi_app = _PrefixMiddleware(app.wsgi_app, prefix, headers)  # type: ignore[method-assign]
    if allowed_hosts is not None:
        app.wsgi_app = _HostMiddleware(app.wsgi_app, allowed_hosts, headers)  # type: ignore[method-assign]
    return app


def _file_response(path: Path, *, versioned: bool, compressed: CompressedFiles) -> Response:
    """A static file, compressed when asked and worth it, with a validator (304 when unchanged).

    The ETag names the file's version (size, modification time) and the encoding sent: a
    client holding the gzipped bytes revalidates them as such.
    """
    stat = path.stat()
    mimetype = content_type(path)
    varies = compressible(mimetype) and stat.st_size >= MIN_SIZE
    encoding = chosen_encoding(request.headers.get("Accept-Encoding")) if varies else None
    etag = f"{stat.st_size:x}-{stat.st_mtime_ns:x}" + (f"-{encoding}" if encoding else "")
    if encoding is None:
        response = send_file(path, mimetype=mimetype, conditional=False, etag=False, max_age=None)
    else:
        response = Response(compressed.get(path, encoding), mimetype=mimetype)
        response.headers["Content-Encoding"] = encoding
    # Exactly as given: werkzeug appends "; charset=utf-8" to a text type that already has it.
    response.headers["Content-Type"] = mimetype
    response.headers["Cache-Control"] = _LONG_CACHE if versioned else "no-cache"
    if varies:
        add_vary(response)
    response.set_etag(etag)
    response.last_modified = int(stat.st_mtime)  # type: ignore[assignment]
    return response.make_conditional(request)
