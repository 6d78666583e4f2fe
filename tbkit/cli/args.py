"""The arguments of ``tbkit inspect``, ``tbkit export`` and ``tbkit report``, and their entry points.

Each ``_run_*`` function imports its command's module only when called, so ``tbkit --help``
stays fast. They return the exit code: 0 success, 1 failure (the caller prints the one-line
error), 2 usage error (argparse).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_commands"]


def _kinds(text: str) -> list[str]:
    from tbkit.cli.export import parse_kinds
    from tbkit.errors import InvalidArgumentError

    try:
        return parse_kinds(text)
    except InvalidArgumentError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"1", "true", "yes", "on", "0", "false", "no", "off"}:
        return lowered in {"1", "true", "yes", "on"}
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _weight(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"smoothing is in [0, 1), got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _progress(args: argparse.Namespace) -> bool | None:
    return False if args.no_progress else None


def _run_inspect(args: argparse.Namespace) -> int:
    from tbkit.cli.inspect import format_json, format_text, inspect_logdir

    digest = inspect_logdir(args.logdir, tag=args.tag, runs=args.runs, progress=_progress(args))
    sys.stdout.write(format_json(digest) + "\n" if args.json else format_text(digest))
    sys.stdout.flush()
    return 1 if args.fail_on_problems and digest["problems"] else 0


def _run_export(args: argparse.Namespace) -> int:
    from tbkit.cli.export import export_logdir

    manifest = export_logdir(
        args.logdir,
        args.output,
        fmt=args.format,
        runs=args.runs,
        tags=args.tags,
        kinds=args.kinds,
        purge_orphaned_data=args.purge_orphaned_data,
        progress=_progress(args),
        group_by=args.group_by,
        stat=args.stat,
        band=args.band,
        partition_by=args.partition_by,
    )
    for kind, entry in manifest["kinds"].items():
        media = (
            f", {entry['media_files']} media files in {entry['media_dir']}/"
            if entry.get("media_files")
            else ""
        )
        print(f"{kind:<15} {entry['rows']:>12,} rows  {entry['file']}{media}")
    print(f"Wrote {args.output}/manifest.json")
    if manifest["problems"]:
        print(
            f"tbkit: note: {manifest['problems']} problem(s) while reading (see `tbkit inspect`)",
            file=sys.stderr,
        )
    return 0


def _run_report(args: argparse.Namespace) -> int:
    from tbkit.cli.report import write_report

    info = write_report(
        args.logdir,
        args.output,
        runs=args.runs,
        tags=args.tags,
        title=args.title,
        smoothing=args.smoothing,
        points=args.points,
        images=args.images,
        progress=_progress(args),
    )
    print(
        f"Wrote {args.output} ({info['charts']} charts, {info['images']} images, {info['texts']} texts, "
        f"{info['bytes'] / 1e6:.1f} MB)"
    )
    return 0


def _common(
    parser: argparse.ArgumentParser, *, tags_help: str | None = "tags where this regex matches"
) -> None:
    parser.add_argument("--logdir", required=True, help="the log directory (local path or fsspec URL)")
    parser.add_argument(
        "--runs", metavar="REGEX", help="only runs where this regex matches (anywhere in the name)"
    )
    if tags_help:
        parser.add_argument("--tags", metavar="REGEX", help=tags_help)
    parser.add_argument(
        "--no-progress",
        dest="no_progress",
        action="store_true",
        help="no progress bar (shown on terminals only)",
    )


def add_commands(sub: Any) -> None:
    """Add ``inspect``, ``export`` and ``report`` to the ``tbkit`` subparsers ``sub``."""
    inspect = sub.add_parser(
        "inspect",
        help="digest of every run and tag (steps, out-of-order steps, restarts) and the problems found",
        description="Print a digest of a logdir, like `tensorboard --inspect`: per run and tag the kind, "
        "count, distinct steps, first/last/min/max step and out-of-order steps; SessionLog events; "
        "and every problem (corrupt records with file and byte offset). Data are shown as written "
        "(nothing purged).",
    )
    _common(inspect, tags_help=None)
    inspect.add_argument("--tag", help="only this tag (exact name)")
    inspect.add_argument("--json", action="store_true", help="print JSON instead of the text report")
    inspect.add_argument(
        "--fail-on-problems",
        dest="fail_on_problems",
        action="store_true",
        help="exit 1 when problems were found",
    )
    inspect.set_defaults(func=_run_inspect)

    export = sub.add_parser(
        "export",
        help="export every selected run x tag to Parquet, CSV or JSON, one file per kind",
        description="Export a logdir into a directory: one file per kind (OUT/scalars.parquet, "
        "OUT/images.parquet, ...) and OUT/manifest.json. With csv and json, binary cells (images, "
        "audio ...) are written as files under OUT/<kind>/ and referenced by path. See docs/cli.md.",
    )
    _common(export)
    export.add_argument("-o", "--output", required=True, metavar="OUT", help="output directory (created)")
    export.add_argument(
        "--format", choices=["parquet", "csv", "json"], default="parquet", help="default parquet"
    )
    export.add_argument(
        "--kinds",
        type=_kinds,
        default=None,
        metavar="K1,K2",
        help="kinds to export (default all): scalars, histograms, images, audio, text, tensors, pr_curves, "
        "hparams, custom_scalars, meshes, graphs, graph_nodes, embeddings, traces, runs, tags, problems",
    )
    export.add_argument(
        "--purge_orphaned_data",
        type=_bool,
        default=True,
        metavar="BOOL",
        help="drop data orphaned by restarts (SessionLog.START), as TensorBoard does (default true)",
    )
    export.add_argument(
        "--group-by",
        dest="group_by",
        metavar="REGEX|hparam:NAME",
        help="also write OUT/scalar_groups.<ext>: runs grouped by a regex (its first capture group names "
        "the group, e.g. '(.*)_seed\\d+') or by a hyperparameter; one line per group, tag and step with "
        "its band (without --kinds, only this file is written)",
    )
    export.add_argument(
        "--stat", choices=["mean", "median"], default="mean", help="with --group-by: the line (default mean)"
    )
    export.add_argument(
        "--band",
        choices=["std", "minmax"],
        default="std",
        help="with --group-by: the band, line ± standard deviation or min–max (default std)",
    )
    export.add_argument(
        "--partition-by",
        dest="partition_by",
        type=lambda text: [part.strip() for part in text.split(",") if part.strip()],
        default=None,
        metavar="COL[,COL]",
        help="with parquet: write each kind as a Hive-partitioned dataset OUT/<kind>/<COL>=<value>/..., "
        "e.g. --partition-by run (DuckDB, Dask, Polars and Spark read it directly)",
    )
    export.set_defaults(func=_run_export)

    report = sub.add_parser(
        "report",
        help="one self-contained HTML file: scalar charts, latest images and text",
        description="Write one self-contained HTML file (opens without network) with the scalar charts "
        "(smoothing, runs legend), the latest images and the latest text of each run and tag.",
    )
    _common(report)
    report.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    report.add_argument("--title", default=None, help="the report's title (default: the logdir's name)")
    report.add_argument(
        "--smoothing", type=_weight, default=0.6, help="initial smoothing weight (default 0.6)"
    )
    report.add_argument(
        "--points", type=_positive, default=1000, help="points per line, min/max downsampled (default 1000)"
    )
    report.add_argument(
        "--images", type=_positive, default=1, help="latest steps of images per run and tag (default 1)"
    )
    report.set_defaults(func=_run_report)
