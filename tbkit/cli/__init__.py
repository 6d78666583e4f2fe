"""The ``tbkit`` command line: ``serve``, ``demo``, ``inspect``, ``export`` and ``report``.

``python -m tbkit`` runs it too. ``serve`` also takes TensorBoard's ``--inspect`` (with
``--logdir`` or ``--event_file``, and ``--tag``) and ``--reload_multifile``: see
:mod:`tbkit.cli.serve_compat`.

One module per command: :mod:`tbkit.cli.serve` (with ``demo``'s server flags),
:mod:`tbkit.cli.demo`, :mod:`tbkit.cli.inspect`, :mod:`tbkit.cli.export` and
:mod:`tbkit.cli.report` (the arguments of the last three in :mod:`tbkit.cli.args`). Each is
imported only when its command runs, so ``tbkit --help`` stays fast.

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


def _demo(args: argparse.Namespace) -> int:
    from tbkit.cli.demo import write_demo_logdir

    logdir = args.logdir or tempfile.mkdtemp(prefix="tbkit-demo-")
    written = write_demo_logdir(logdir)
    print(f"Wrote a demo log directory: {logdir}")
    for run, tags in written.items():
        print(f"  run {run}: {', '.join(tags)}")
    sys.stdout.flush()
    if args.no_serve:
        return 0
    from tbkit.cli.serve import run_server

    return run_server(args, [("", logdir)])


_DEBUG_HELP = "on failure, print the full traceback (give it when reporting a bug)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tbkit`` command."""
    parser = argparse.ArgumentParser(prog="tbkit", description="Write, read and serve TensorBoard logs.")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    from tbkit.cli.serve import add_command, add_server_flags

    add_command(sub)  # serve

    demo = sub.add_parser("demo", help="write a demo log directory of every kind and serve it")
    demo.add_argument("--logdir", help="where to write (default: a new temporary directory)")
    demo.add_argument(
        "--no-serve", dest="no_serve", action="store_true", help="write the logdir, do not serve it"
    )
    add_server_flags(demo)
    demo.set_defaults(func=_demo)

    from tbkit.cli.args import add_commands

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
