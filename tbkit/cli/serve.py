"""``tbkit serve``: its flags (shared with ``tbkit demo``) and serving logdirs.

The command line builds the provider (a :class:`~tbkit.reader.multi.MultiLogdirProvider`
over the ``(name, path)`` pairs of ``--logdir`` or ``--logdir_spec``), warns about logdirs
that are missing, files or without event files, and hands the provider to the server
(:func:`tbkit.server.serve.serve`), which never imports the reader. TensorBoard's
``--inspect``, ``--event_file``, ``--tag`` and ``--reload_multifile`` are in
:mod:`tbkit.cli.serve_compat`.

Example:
    >>> parser = argparse.ArgumentParser()
    >>> add_server_flags(parser)
    >>> parser.parse_args(["--port", "0"]).port
    0
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tbkit.errors import InvalidArgumentError
from tbkit.record import storage

if TYPE_CHECKING:
    from tbkit.server.serve import ServerHandle

__all__ = [
    "add_command",
    "add_server_flags",
    "configure_logging",
    "empty_logdir_warnings",
    "logdir_warnings",
    "parse_logdirs",
    "parse_samples_per_plugin",
    "run_server",
    "serve_logdirs",
]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE | _FALSE:
        return lowered in _TRUE
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is in [0, 65535], got {port}")
    return port


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value


def add_server_flags(parser: argparse.ArgumentParser) -> None:
    """Add the flags of serving (``--port``, ``--host``, ``--reload_interval`` ...) to ``parser``."""
    parser.add_argument(
        "--port",
        type=_port,
        default=None,
        help="port to listen on (default 6006, or the next free one; 0: any)",
    )
    parser.add_argument("--host", default=None, help="address to bind (default localhost)")
    parser.add_argument(
        "--bind_all", action="store_true", help="listen on every network interface (others can connect!)"
    )
    parser.add_argument(
        "--reload_interval",
        type=_seconds,
        default=5.0,
        help="seconds between checks for new data (default 5; 0 loads once)",
    )
    parser.add_argument(
        "--samples_per_plugin",
        default="",
        help="points served per series by default, e.g. scalars=1000,images=10 (N or all)",
    )
    parser.add_argument("--path_prefix", default="", help="serve under this URL path, e.g. /tensorboard")
    parser.add_argument("--window_title", default="", help="the browser window's title")
    parser.add_argument(
        "--purge_orphaned_data",
        type=_bool,
        default=True,
        metavar="BOOL",
        help="drop data orphaned by restarts (SessionLog.START), as TensorBoard does (default true)",
    )
    parser.add_argument(
        "--allow_outside_files",
        action="store_true",
        help="serve files a run names (projector tensors and metadata, profile traces) even when they "
        "resolve outside the log directory, through a symlink or an absolute or .. path (default: refused; "
        "a run directory linked into the logdir is always followed)",
    )
    parser.add_argument(
        "--allowed_hosts",
        default="",
        metavar="NAMES",
        help="comma-separated host names to answer to besides localhost, IP addresses, this machine's "
        "names and --host (e.g. a reverse proxy's public name; * for any): other Host headers get a 403, "
        "a defence against DNS rebinding",
    )


def _host(args: argparse.Namespace) -> str:
    if args.bind_all and args.host:
        raise InvalidArgumentError("give --host or --bind_all, not both")
    return "0.0.0.0" if args.bind_all else (args.host or "localhost")


def parse_samples_per_plugin(spec: str | None) -> dict[str, int | None]:
    """``"scalars=1000,images=all"`` as ``{"scalars": 1000, "images": None}`` (None keeps all).

    Example:
        >>> parse_samples_per_plugin("scalars=500, images=all")
        {'scalars': 500, 'images': None}
    """
    out: dict[str, int | None] = {}
    for item in (spec or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise InvalidArgumentError(f"--samples_per_plugin: expected plugin=N or plugin=all, got {item!r}")
        if value == "all":
            out[name] = None
            continue
        try:
            number = int(value)
        except ValueError:
            raise InvalidArgumentError(f"--samples_per_plugin: {name}={value!r} is not a number") from None
        if number < 1:
            raise InvalidArgumentError(f"--samples_per_plugin: {name} must be at least 1, got {number}")
        out[name] = number
    return out


_NAMED = re.compile(r"^([^/\\:]+):(?!//)(.+)$")


def parse_logdirs(logdir: str | None = None, logdir_spec: str | None = None) -> list[tuple[str, str]]:
    """``(name, path)`` pairs from ``--logdir`` (one path, or a comma list) and ``--logdir_spec``.

    ``--logdir_spec`` is ``name:path,name2:path2`` (a bare path is named after its last
    directory); one plain ``--logdir`` path gets the name ``""`` (runs are not prefixed).
    URLs (``s3://...``) are paths, not names.

    Example:
        >>> parse_logdirs(logdir_spec="a:/tmp/x,b:/tmp/y")
        [('a', '/tmp/x'), ('b', '/tmp/y')]
    """
    if bool(logdir) == bool(logdir_spec):
        raise InvalidArgumentError("give exactly one of --logdir and --logdir_spec")
    items = [item.strip() for item in (logdir or logdir_spec or "").split(",") if item.strip()]
    if not items:
        raise InvalidArgumentError("no log directory given")
    if logdir and len(items) == 1:
        return [("", items[0])]
    out: list[tuple[str, str]] = []
    for item in items:
        match = _NAMED.match(item)
        name, path = (
            (match.group(1), match.group(2)) if match else (item.rstrip("/").split("/")[-1] or item, item)
        )
        if name in {n for n, _ in out}:
            raise InvalidArgumentError(f"two log directories are named {name!r}; name them with name:path")
        out.append((name, path))
    return out


def _named(name: str, path: str) -> str:
    return f"{name}:{path}" if name else path


def logdir_warnings(logdirs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(path, warning)`` for each local logdir that does not exist or is a file.

    A URL (``s3://...``) is not checked: object stores have no directories to miss.
    ``tbkit serve`` prints each warning as one line and serves anyway, as TensorBoard does.

    Example:
        >>> logdir_warnings([("", "/no/such/dir")])[0][1]
        'logdir /no/such/dir does not exist; serving anyway (runs appear once it is created)'
    """
    out = []
    for name, path in logdirs:
        if not storage.is_local(path):
            continue
        local = Path(path[len("file://") :] if path.startswith("file://") else path)
        if local.is_file():
            out.append((path, f"logdir {_named(name, path)} is a file, not a directory; serving anyway"))
        elif not local.exists():
            why = "does not exist; serving anyway (runs appear once it is created)"
            out.append((path, f"logdir {_named(name, path)} {why}"))
    return out


def empty_logdir_warnings(empty: Sequence[tuple[str, str]], skip: Collection[str] = ()) -> list[str]:
    """One warning per logdir in ``empty`` (the ``(name, path)`` pairs without runs), but ``skip``'s paths.

    Example:
        >>> empty_logdir_warnings([("", "/tmp/x")])
        ['no event files found in logdir /tmp/x; serving anyway (runs appear as they are written)']
    """
    why = "serving anyway (runs appear as they are written)"
    return [f"no event files found in logdir {_named(n, p)}; {why}" for n, p in empty if p not in skip]


def serve_logdirs(
    logdirs: Sequence[tuple[str, str]],
    *,
    host: str = "localhost",
    port: int | None = None,
    reload_interval: float = 5.0,
    purge_orphaned_data: bool = True,
    allow_outside_files: bool = False,
    allowed_hosts: Sequence[str] = (),
    window_title: str = "",
    path_prefix: str = "",
    samples_per_plugin: Mapping[str, int | None] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    ready: Callable[[ServerHandle], None] | None = None,
) -> int:
    """Serve ``logdirs`` (``(name, path)`` pairs) until interrupted, as ``tbkit serve`` does; returns 0.

    Builds the provider over the logdirs and serves it with :func:`tbkit.server.serve.serve`
    (the other arguments are its own). ``allow_outside_files``: read plugin files that resolve
    outside the logdir (see :mod:`tbkit.plugins._paths`); ``allowed_hosts``: more host
    names to answer to (see :mod:`tbkit.server.hosts`). A logdir that does not exist or is a file, and one
    where the first load found no event files, get one ``tbkit: warning:`` line each on
    ``err`` (default stderr); serving goes on.

    Example:
        >>> serve_logdirs([("", "runs")], port=0)  # doctest: +SKIP
        tbkit serving runs at http://localhost:40123/ (press Ctrl+C to quit)
        0
    """
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import serve

    err = err if err is not None else sys.stderr
    provider = MultiLogdirProvider(
        logdirs, purge_orphaned_data=purge_orphaned_data, allow_outside_files=allow_outside_files
    )
    warned = logdir_warnings(logdirs)
    for _, message in warned:
        print(f"tbkit: warning: {message}", file=err, flush=True)

    def first_load() -> None:
        for message in empty_logdir_warnings(provider.empty_logdirs(), {path for path, _ in warned}):
            print(f"tbkit: warning: {message}", file=err, flush=True)

    return serve(
        provider,
        host=host,
        port=port,
        reload_interval=reload_interval,
        window_title=window_title,
        path_prefix=path_prefix,
        samples_per_plugin=samples_per_plugin,
        out=out,
        ready=ready,
        on_first_load=first_load,
        allowed_hosts=allowed_hosts,
    )


def configure_logging(*, debug: bool) -> None:
    """With ``debug`` (``--debug``), show the server's own log records on stderr.

    That includes waitress' ``Task queue depth is N`` warnings, which a normal run hides
    (see :func:`tbkit.server.serve.quiet_server_logs`). Without it, logging is left as is.
    """
    if not debug:
        return
    root = logging.getLogger()
    if not any(getattr(handler, "_tbkit", False) for handler in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("tbkit: %(levelname)s %(name)s: %(message)s"))
        handler._tbkit = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    logging.getLogger("waitress.queue").setLevel(logging.WARNING)


def run_server(args: argparse.Namespace, logdirs: list[tuple[str, str]]) -> int:
    """Serve ``logdirs`` with the server flags in ``args``, until interrupted."""
    configure_logging(debug=bool(getattr(args, "debug", False)))
    samples = parse_samples_per_plugin(args.samples_per_plugin)
    return serve_logdirs(  # it warns about missing, file and empty logdirs
        logdirs,
        host=_host(args),
        port=args.port,
        reload_interval=args.reload_interval,
        purge_orphaned_data=args.purge_orphaned_data,
        allow_outside_files=getattr(args, "allow_outside_files", False),
        allowed_hosts=[n.strip() for n in getattr(args, "allowed_hosts", "").split(",") if n.strip()],
        window_title=args.window_title,
        path_prefix=args.path_prefix,
        samples_per_plugin=samples,
    )


def _serve(args: argparse.Namespace) -> int:
    from tbkit.cli.serve_compat import inspect_instead

    inspected = inspect_instead(args)  # --inspect: a digest, no server
    if inspected is not None:
        return inspected

    return run_server(args, parse_logdirs(args.logdir, args.logdir_spec))


def add_command(sub: Any) -> None:
    """Add ``serve`` to the ``tbkit`` subparsers ``sub``."""
    serve = sub.add_parser(
        "serve",
        help="serve log directories in the browser (TensorBoard's UI, without TensorFlow)",
        description="Serve TensorBoard log directories at http://localhost:6006/.",
    )
    where = serve.add_mutually_exclusive_group(required=True)
    where.add_argument("--logdir", help="log directory (or a comma-separated list; also fsspec URLs)")
    where.add_argument("--logdir_spec", help="named log directories: name1:path1,name2:path2")
    add_server_flags(serve)
    from tbkit.cli.serve_compat import add_flags

    add_flags(serve, where)  # TensorBoard's --inspect, --event_file, --tag, --reload_multifile
    serve.set_defaults(func=_serve)
