"""The ``tbkit`` command line."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from tbkit.demo import write_demo_logdir

    logdir = args.logdir or tempfile.mkdtemp(prefix="tbkit-demo-")
    written = write_demo_logdir(logdir)
    print(f"Wrote a demo log directory: {logdir}")
    for run, tags in written.items():
        print(f"  run {run}: {', '.join(tags)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tbkit`` command."""
    parser = argparse.ArgumentParser(prog="tbkit", description="Write, read and serve TensorBoard logs.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="write a demo log directory of every kind")
    demo.add_argument("--logdir", help="where to write (default: a new temporary directory)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tbkit`` command; returns the exit code (0 ok, 1 failure, 2 usage)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except Exception as exc:  # one line to stderr, exit code 1
        print(f"tbkit: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
