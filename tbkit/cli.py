"""The ``tbkit`` command line: ``serve``, ``demo``, ``inspect``, ``export`` and ``report``.

``python -m tbkit`` runs it too. ``serve`` also takes TensorBoard's ``--inspect`` (with
``--logdir`` or ``--event_file``, and ``--tag``) and ``--reload_multifile``: see
:mod:`tbkit.commands.serve_compat`.

``inspect``, ``export`` and ``report`` live in :mod:`tbkit.commands` (arguments in
:mod:`tbkit.commands.cli_args`).

Exit codes: 0 success, 1 failure, 2 usage error. A known failure (a
:class:`~tbkit.errors.TbkitError` or an ``OSError``: a missing logdir, a busy port ...) prints
one line on stderr; anything else is a bug and prints its type, its message and a hint to
rerun with ``--debug``, which shows the traceback of any failure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import traceback
from collections.abc import Sequence

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


def _add_server_flags(parser: argparse.ArgumentParser) -> None:
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


def _run_server(args: argparse.Namespace, logdirs: list[tuple[str, str]]) -> int:
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
    from tbkit.commands.serve_compat import inspect_instead
    from tbkit.server.serve import parse_logdirs

    inspected = inspect_instead(args)  # --inspect: a digest, no server
    if inspected is not None:
        return inspected

    return _run_server(args, parse_logdirs(args.logdir, args.logdir_spec))


def _demo(args: argparse.Namespace) -> int:
    from tbkit.demo import write_demo_logdir

    logdir = args.logdir or tempfile.mkdtemp(prefix="tbkit-demo-")
    written = write_demo_logdir(logdir)
    print(f"Wrote a demo log directory: {logdir}")
    for run, tags in written.items():
        print(f"  run {run}: {', '.join(tags)}")
    sys.stdout.flush()
    if args.no_serve:
        return 0
    return _run_server(args, [("", logdir)])


_DEBUG_HELP = "on failure, print the full traceback (give it when reporting a bug)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tbkit`` command."""
    parser = argparse.ArgumentParser(prog="tbkit", description="Write, read and serve TensorBoard logs.")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser(
        "serve",
        help="serve log directories in the browser (TensorBoard's UI, without TensorFlow)",
        description="Serve TensorBoard log directories at http://localhost:6006/.",
    )
    where = serve.add_mutually_exclusive_group(required=True)
    where.add_argument("--logdir", help="log directory (or a comma-separated list; also fsspec URLs)")
    where.add_argument("--logdir_spec", help="named log directories: name1:path1,name2:path2")
    _add_server_flags(serve)
    from tbkit.commands.serve_compat import add_flags

    add_flags(serve, where)  # TensorBoard's --inspect, --event_file, --tag, --reload_multifile
    serve.set_defaults(func=_serve)

    demo = sub.add_parser("demo", help="write a demo log directory of every kind and serve it")
    demo.add_argument("--logdir", help="where to write (default: a new temporary directory)")
    demo.add_argument(
        "--no-serve", dest="no_serve", action="store_true", help="write the logdir, do not serve it"
    )
    _add_server_flags(demo)
    demo.set_defaults(func=_demo)

    from tbkit.commands.cli_args import add_commands

    add_commands(sub)
    for command in sub.choices.values():  # --debug after the command name works too
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
    return parser


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _report(exc: Exception, debug: bool) -> None:
    """Print ``exc`` to stderr: one line when it is a known failure, a bug report otherwise."""
    from tbkit.errors import TbkitError

    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, TbkitError | OSError):
        print(f"tbkit: error: {_one_line(exc) or type(exc).__name__}", file=sys.stderr)
        return
    message = _one_line(exc)
    print(f"tbkit: error: {type(exc).__name__}{': ' + message if message else ''}", file=sys.stderr)
    if not debug:
        print(
            "tbkit: this is probably a bug in tbkit; rerun with --debug to see the traceback "
            "(and include it when you report the bug)",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tbkit`` command; returns the exit code (0 ok, 1 failure, 2 usage).

    Example:
        >>> main(["inspect", "--logdir", "runs"])  # doctest: +SKIP
        0
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 0
    except Exception as exc:
        _report(exc, bool(args.debug))
        return 1


if __name__ == "__main__":
    sys.exit(main())
