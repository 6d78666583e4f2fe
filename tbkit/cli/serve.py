"""``tbkit serve``: its flags (shared with ``tbkit demo``) and running the server over logdirs.

TensorBoard's ``--inspect``, ``--event_file``, ``--tag`` and ``--reload_multifile`` are in
:mod:`tbkit.cli.serve_compat`. The server itself is :mod:`tbkit.server.serve`.

Example:
    >>> parser = argparse.ArgumentParser()
    >>> add_server_flags(parser)
    >>> parser.parse_args(["--port", "0"]).port
    0
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_command", "add_server_flags", "run_server"]

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


def _host(args: argparse.Namespace) -> str:
    if args.bind_all and args.host:
        from tbkit.errors import InvalidArgumentError

        raise InvalidArgumentError("give --host or --bind_all, not both")
    return "0.0.0.0" if args.bind_all else (args.host or "localhost")


def run_server(args: argparse.Namespace, logdirs: list[tuple[str, str]]) -> int:
    """Serve ``logdirs`` (``(name, path)`` pairs) with the server flags in ``args``, until interrupted."""
    from tbkit.server.serve import parse_samples_per_plugin, serve

    samples = parse_samples_per_plugin(args.samples_per_plugin)
    return serve(  # it warns about missing, file and empty logdirs
        logdirs,
        host=_host(args),
        port=args.port,
        reload_interval=args.reload_interval,
        purge_orphaned_data=args.purge_orphaned_data,
        window_title=args.window_title,
        path_prefix=args.path_prefix,
        samples_per_plugin=samples,
    )


def _serve(args: argparse.Namespace) -> int:
    from tbkit.cli.serve_compat import inspect_instead
    from tbkit.server.serve import parse_logdirs

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
