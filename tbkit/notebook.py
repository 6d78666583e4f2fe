"""tbkit in notebooks: ``%load_ext tbkit`` and ``%tbkit --logdir DIR``, or from Python
:func:`show`, :func:`list` and :func:`stop`; :func:`plot` draws a scalars frame inline.

``show(logdir)`` starts (or reuses) a background server for the logdir in the kernel's
process, on 127.0.0.1, and displays an output that works wherever the notebook is viewed:

* its static content is a **self-contained inline view** of the logdir (the ``tbkit report``
  page: scalar charts with smoothing and the UI's run colours, the latest images and text)
  in a sandboxed ``srcdoc`` frame, so a notebook rendered later (nbviewer, GitHub, a PDF),
  or opened where the browser cannot reach the kernel's machine (VS Code remote, Colab in
  VS Code), still shows the charts;
* where the page can run scripts and reach the server, a small script replaces it with the
  live UI in a frame: at ``http://localhost:<port>/`` when the browser is on the kernel's
  machine, or through ``jupyter-server-proxy`` (``<base>/proxy/absolute/<port>/``, the server
  started with that path prefix) when the notebook runs behind JupyterHub or a proxy.

While the cell that called :func:`show` runs (a training loop after it, say), the inline
view is redrawn from the kernel every ``refresh`` seconds, so a notebook that cannot reach
the server still sees the run grow.
"""

from __future__ import annotations

import argparse
import builtins
import html
import json
import os
import shlex
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from tbkit.errors import InvalidArgumentError, MissingDependencyError

__all__ = ["NotebookServer", "inline_view", "list", "load_ipython_extension", "plot", "show", "stop"]

DEFAULT_HEIGHT = 800
PROXY_ENV = "TBKIT_NOTEBOOK_PROXY"  # a base URL path ("/user/me/") forces the proxy; "0" turns it off


@dataclass(frozen=True)
class NotebookServer:
    """A server started for a notebook.

    Attributes:
        logdir: The logdir it serves, as given.
        port: The port on 127.0.0.1.
        url: Where the notebook's browser reaches it (direct, or through the proxy).
        started: When it started (seconds since the epoch).
    """

    logdir: str
    port: int
    url: str
    started: float


_lock = threading.Lock()
_running: dict[str, tuple[NotebookServer, Any]] = {}  # logdir key -> (server, handle)


def _key(logdir: str) -> str:
    return logdir if "://" in logdir else os.path.realpath(logdir)


def _base_path(prefix: str) -> str:
    inner = prefix.strip("/")
    return f"/{inner}/" if inner else "/"


def _proxy_base() -> str | None:
    """The notebook server's base path when pages reach kernels' ports through jupyter-server-proxy.

    ``TBKIT_NOTEBOOK_PROXY`` decides when set (a base path, or ``0`` for none); else the
    proxy is used under JupyterHub (``JUPYTERHUB_SERVICE_PREFIX``) when it is installed.
    """
    forced = os.environ.get(PROXY_ENV)
    if forced is not None:
        return None if forced in ("", "0") else _base_path(forced)
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX")
    if prefix is None:
        return None
    try:
        import jupyter_server_proxy  # noqa: F401
    except ImportError:
        return None
    return _base_path(prefix)


LOOPBACK_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*", "https://localhost:*", "vscode-webview:")


def notebook_origins() -> list[str]:
    """The origins whose pages may frame a notebook's server: the running Jupyter servers'.

    Read from Jupyter's runtime files when ``jupyter_server`` is importable; otherwise (or
    when none is listed) the loopback origins of any port and VS Code's webviews. A page
    served under the notebook's own origin (through the proxy) is always allowed.
    """
    origins: list[str] = []
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:
        list_running_servers = None
    if list_running_servers is not None:
        from urllib.parse import urlsplit

        for info in list_running_servers():
            parts = urlsplit(str(info.get("url", "")))
            if parts.scheme and parts.netloc:
                origins.append(f"{parts.scheme}://{parts.netloc}")
    return sorted(set(origins)) or [*LOOPBACK_ORIGINS]


def _start(
    logdir: str, port: int, reload_interval: float, options: dict[str, Any]
) -> tuple[NotebookServer, Any]:
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    provider = MultiLogdirProvider([("", logdir)])
    options = {"frame_ancestors": notebook_origins(), **options}
    base = _proxy_base()
    if base is None:
        handle = start(provider, host="127.0.0.1", port=port, reload_interval=reload_interval, **options)
        url = f"http://localhost:{handle.port}/"
    else:
        # The prefix names the port, so the port must be known first: bind, then start on it.
        import socket

        if not port:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
        prefix = f"{base}proxy/absolute/{port}"
        handle = start(
            provider,
            host="127.0.0.1",
            port=port,
            reload_interval=reload_interval,
            path_prefix=prefix,
            **options,
        )
        url = prefix + "/"
    return NotebookServer(logdir, handle.port, url, time.time()), handle


def _server(logdir: str, port: int, reload_interval: float, options: dict[str, Any]) -> NotebookServer:
    """The running server for ``logdir`` (a new one when none runs, or on another port)."""
    key = _key(logdir)
    with _lock:
        found = _running.get(key)
        if found is not None and (not port or found[0].port == port) and found[1].wait(0) is False:
            return found[0]
        if found is not None:
            found[1].close()
        server, handle = _start(logdir, port, reload_interval, options)
        _running[key] = (server, handle)
        return server


def list() -> builtins.list[NotebookServer]:  # the documented name, as tensorboard.notebook.list
    """The servers this kernel started and that still run, oldest first."""
    with _lock:
        return sorted((s for s, h in _running.values() if h.wait(0) is False), key=lambda s: s.started)


def stop(which: str | int | None = None) -> int:
    """Stop servers this kernel started: all (``None``), the one of a logdir, or on a port.

    Returns:
        How many were stopped.
    """
    with _lock:
        keys = [
            key
            for key, (server, _) in _running.items()
            if which is None
            or (isinstance(which, int) and server.port == which)
            or (isinstance(which, str) and key == _key(which))
        ]
        handles = [_running.pop(key)[1] for key in keys]
    for handle in handles:
        handle.close()
    return len(handles)


def _report_page(logdir: str, title: str) -> str:
    from tbkit.cli.report import build_report
    from tbkit.reader.logdir import read

    page, _ = build_report(read(logdir), title=title)
    return page


def _frame_html(page: str, height: int, *, label: str) -> str:
    # sandbox: scripts may run (the charts), nothing else: no same-origin, forms or navigation.
    srcdoc = html.escape(page, quote=True)
    return (
        f'<iframe class="tbkit-inline" title="{html.escape(label)}" sandbox="allow-scripts" '
        f'style="width:100%;height:{int(height)}px;border:0" srcdoc="{srcdoc}"></iframe>'
    )


def inline_view(logdir: str, *, height: int = DEFAULT_HEIGHT, title: str | None = None) -> str:
    """The self-contained inline view of ``logdir`` as HTML (a sandboxed ``srcdoc`` frame)."""
    name = title or os.path.basename(os.path.normpath(str(logdir))) or str(logdir)
    return _frame_html(_report_page(str(logdir), name), height, label=f"tbkit: {name}")


def _live_script(element_id: str, url: str, height: int) -> str:
    """Swaps the inline view for the live UI once the server answers the page's browser."""
    config = json.dumps({"id": element_id, "url": url, "height": int(height)})
    return f"""<script>(function (c) {{
  var root = document.getElementById(c.id);
  if (!root || !window.fetch) return;
  fetch(c.url + "data/environment", {{mode: "no-cors", cache: "no-store"}}).then(function () {{
    var frame = document.createElement("iframe");
    frame.className = "tbkit-live";
    frame.title = "tbkit";
    frame.src = c.url;
    frame.style.cssText = "width:100%;border:0;height:" + c.height + "px";
    var inline = root.querySelector(".tbkit-inline");
    if (inline) inline.replaceWith(frame); else root.appendChild(frame);
    root.dataset.view = "live";
  }}, function () {{ root.dataset.view = "inline"; }});
}})({config});</script>"""


def view_html(server: NotebookServer, *, height: int = DEFAULT_HEIGHT, inline: bool = True) -> str:
    """The output of :func:`show`: the inline view, upgraded to the live UI where reachable."""
    element_id = f"tbkit-{uuid.uuid4().hex}"
    content = inline_view(server.logdir, height=height) if inline else ""
    link = f'<a href="{html.escape(server.url, quote=True)}" target="_blank" rel="noopener">open tbkit</a>'
    url = html.escape(server.url, quote=True)
    return (
        f'<div class="tbkit-notebook" id="{element_id}" data-view="inline" data-url="{url}">'
        f'{content}<div style="font:12px sans-serif;color:#666">tbkit serving {html.escape(server.logdir)} · '
        f"{link}</div></div>{_live_script(element_id, server.url, height)}"
    )


def _ipython() -> Any:
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display, update_display
    except ImportError as exc:
        raise MissingDependencyError("ipython", extra="notebook", feature="tbkit.notebook") from exc
    return get_ipython(), HTML, display, update_display


def _refresh_while_cell_runs(server: NotebookServer, display_id: str, every: float, height: int) -> None:
    """Redraw the output ``display_id`` from the kernel until the current cell ends."""
    shell, html_type, _, update_display = _ipython()
    if shell is None or every <= 0:
        return
    done = threading.Event()

    def redraw() -> None:
        while not done.wait(every):
            try:
                update_display(html_type(view_html(server, height=height)), display_id=display_id)
            except Exception:  # a redraw must never disturb the user's cell
                return

    def cell_ended(*_: Any) -> None:
        done.set()
        shell.events.unregister("post_run_cell", cell_ended)

    shell.events.register("post_run_cell", cell_ended)
    threading.Thread(target=redraw, name="tbkit-notebook-refresh", daemon=True).start()


def show(
    logdir: str | os.PathLike[str],
    *,
    height: int = DEFAULT_HEIGHT,
    port: int = 0,
    reload_interval: float = 5.0,
    refresh: float = 10.0,
    **options: Any,
) -> NotebookServer:
    """Serve ``logdir`` from this kernel (or reuse its server) and show it in the output.

    Args:
        logdir: A log directory, local or an fsspec URL.
        height: The output's height in pixels.
        port: The port on 127.0.0.1 (0: a free one).
        reload_interval: Seconds between the server's reloads.
        refresh: Seconds between redraws of the inline view while the calling cell runs
            (0: never).
        **options: More options of :func:`tbkit.server.serve.start` (``window_title``,
            ``samples_per_plugin`` ...).

    Returns:
        The server, as :func:`list` lists it.
    """
    if not isinstance(logdir, str | os.PathLike) or not os.fspath(logdir):
        raise InvalidArgumentError(f"logdir must be a path or URL, got {logdir!r}")
    server = _server(os.fspath(logdir), port, reload_interval, options)
    _, html_type, display, _ = _ipython()
    display_id = f"tbkit-{uuid.uuid4().hex}"
    display(html_type(view_html(server, height=height)), display_id=display_id)
    _refresh_while_cell_runs(server, display_id, refresh, height)
    return server


class _FrameSource:
    """A scalars frame as the report builder reads a logdir: ``provider``, ``runs()``, no media."""

    def __init__(self, frame: Any) -> None:
        import pandas as pd

        from tbkit.provider import InMemoryProvider

        needed = {"run", "tag", "step", "value"}
        if not isinstance(frame, pd.DataFrame) or not needed <= set(frame.columns):
            raise InvalidArgumentError(
                "plot() takes a scalars frame: columns run, tag, step, value (and wall_time)"
            )
        walls = frame["wall_time"] if "wall_time" in frame.columns else pd.Series(0.0, index=frame.index)
        data: dict[str, dict[str, dict[str, Any]]] = {}
        for (run, tag), group in frame.assign(_wall=walls).groupby(["run", "tag"], observed=True, sort=True):
            points = builtins.list(zip(group["step"], group["_wall"], group["value"], strict=True))
            data.setdefault(str(run), {})[str(tag)] = {"points": points}
        self.provider = InMemoryProvider(data)
        self.path = "DataFrame"
        self._runs = sorted(data)

    def runs(self) -> Any:
        import pandas as pd

        return pd.DataFrame({"run": self._runs, "start_time": [float("nan")] * len(self._runs)})

    def images(self) -> Any:
        import pandas as pd

        return pd.DataFrame()

    text = images


def plot(
    frame: Any, *, smoothing: float = 0.6, points: int = 1000, title: str = "", height: int = 480
) -> Any:
    """Draw a scalars frame inline with the UI's chart, smoothing and run colours.

    Args:
        frame: ``tbkit.read(...).scalars()`` (or a subset); a ``tbkit.aggregate`` result
            with a ``run`` column naming its groups draws one line per group.
        smoothing: The initial smoothing weight in ``[0, 1)``.
        points: Points per line at most (min/max downsampled, as the server does).
        title: The chart's title.
        height: The output's height in pixels.

    Returns:
        The ``IPython.display.HTML`` object (displayed when it is the cell's last value).
    """
    from tbkit.cli.report import build_report

    _, html_type, _, _ = _ipython()
    page, _ = build_report(_FrameSource(frame), title=title or "charts", smoothing=smoothing, points=points)
    frame_html = _frame_html(page, height, label=f"tbkit: {title or 'charts'}")
    return html_type(f'<div class="tbkit-plot">{frame_html}</div>')  # a bare iframe makes IPython warn


def _magic_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="%tbkit", add_help=False, exit_on_error=False)
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reload_interval", type=float, default=5.0)
    parser.add_argument("--height", type=int, default=DEFAULT_HEIGHT)
    parser.add_argument("--window_title", default="")
    return parser


def tbkit_magic(line: str) -> None:
    """``%tbkit --logdir DIR [--port N] [--reload_interval S] [--height PX] [--window_title T]``."""
    try:
        args = _magic_parser().parse_args(shlex.split(line))
    except (argparse.ArgumentError, SystemExit) as exc:
        raise InvalidArgumentError(f"%tbkit {line}: {exc}; usage: {_magic_parser().format_usage()}") from None
    show(
        args.logdir,
        port=args.port,
        reload_interval=args.reload_interval,
        height=args.height,
        window_title=args.window_title,
    )


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tbkit``: registers the ``%tbkit`` line magic."""
    ipython.register_magic_function(tbkit_magic, magic_kind="line", magic_name="tbkit")
