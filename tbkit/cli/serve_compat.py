"""TensorBoard's ``serve`` flags that are not about serving: ``--inspect``, ``--event_file``, ``--tag``,
``--reload_multifile``.

``tbkit serve --inspect --logdir D`` (or ``--event_file F``, with ``--tag T`` if wanted) prints
what ``tensorboard --inspect`` prints about the event files -- per run the tags by kind, their
counts and step ranges, session logs -- using :mod:`tbkit.cli.inspect`, and exits without
serving. ``--reload_multifile`` is accepted so that TensorBoard command lines run unchanged: tbkit
always reads every event file of a run.

Example:
    >>> parser = argparse.ArgumentParser()
    >>> add_flags(parser, parser.add_mutually_exclusive_group())
    >>> parser.parse_args(["--reload_multifile"]).reload_multifile
    True
"""

from __future__ import annotations

import argparse
import sys

from tbkit.cli.args import _bool

__all__ = ["add_flags", "inspect_instead"]

_MULTIFILE_HELP = (
    "accepted for TensorBoard's command lines, and ignored: tbkit always reads every event file of "
    "a run, in name order (TensorBoard's default, false, polls only the newest file)"
)


def _seconds(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole seconds, got {text!r}") from None


def add_flags(serve: argparse.ArgumentParser, where: argparse._MutuallyExclusiveGroup) -> None:
    """Add ``--event_file`` to ``where`` (the group of ``--logdir``) and the other flags to ``serve``."""
    where.add_argument(
        "--event_file",
        metavar="PATH",
        help="with --inspect: digest this one event file (instead of --logdir)",
    )
    serve.add_argument(
        "--inspect",
        action="store_true",
        help="print a digest of the event files of --logdir or --event_file and exit without serving, "
        "as `tensorboard --inspect` does: per run the tags by kind, counts, step ranges, out-of-order "
        "steps, session logs and problems (see also `tbkit inspect`)",
    )
    serve.add_argument("--tag", help="with --inspect: only this tag (exact name)")
    serve.add_argument(
        "--reload_multifile",
        type=_bool,
        nargs="?",
        const=True,
        default=None,
        metavar="BOOL",
        help=_MULTIFILE_HELP,
    )
    serve.add_argument(
        "--reload_multifile_inactive_secs",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="accepted and ignored, as --reload_multifile",
    )
    serve.set_defaults(usage_error=serve.error)


def _inspect(path: str, *, event_file: bool, tag: str | None) -> int:
    from tbkit.cli.inspect import format_text, inspect_logdir
    from tbkit.errors import InvalidArgumentError
    from tbkit.reader.discovery import checked_logdir
    from tbkit.record import storage

    checked = checked_logdir(path)  # a missing path, or a file that is not an event file, fails here
    if event_file and not storage.is_file(checked):
        raise InvalidArgumentError(f"--event_file {checked} is a directory; give it as --logdir")
    digest = inspect_logdir(checked, tag=tag)
    sys.stdout.write(format_text(digest, by_kind=True))
    sys.stdout.flush()
    return 0


def inspect_instead(args: argparse.Namespace) -> int | None:
    """Run ``--inspect`` when asked (returns the exit code); None when ``serve`` should serve.

    Misused flags are usage errors (exit 2): ``--logdir_spec`` with ``--inspect``; ``--event_file``
    or ``--tag`` without it.
    """
    if args.inspect:
        if args.logdir_spec is not None:
            args.usage_error("--logdir_spec is not supported with --inspect; give --logdir or --event_file")
        if args.event_file is not None:
            return _inspect(args.event_file, event_file=True, tag=args.tag)
        return _inspect(args.logdir, event_file=False, tag=args.tag)
    for flag in ("event_file", "tag"):
        if getattr(args, flag) is not None:
            args.usage_error(f"--{flag} is only used with --inspect")
    return None
