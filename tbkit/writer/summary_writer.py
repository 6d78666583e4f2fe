"""``SummaryWriter``: the user-facing writer, a drop-in for ``torch.utils.tensorboard``'s."""

from __future__ import annotations

import datetime
import socket
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tbkit._arrays import to_numpy
from tbkit.plugins.scalars.summary import scalar_pb, simple_scalar_pb
from tbkit.plugins.tensors.summary import tensor_pb
from tbkit.plugins.text.summary import text_pb
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import storage
from tbkit.writer._compat import CompatMixin, FileWriter, as_message
from tbkit.writer._file_methods import FileMethodsMixin
from tbkit.writer._graph_methods import GraphMethodsMixin
from tbkit.writer._media_methods import MediaMethodsMixin
from tbkit.writer._rank import rank_log_dir, resolve_rank
from tbkit.writer._rich_methods import RichMethodsMixin
from tbkit.writer._values import _INT64_MAX, _INT64_MIN, check_step, check_tag, check_walltime, scalar_float
from tbkit.writer.event_file import EventFileWriter

_now = time.time


def default_logdir(comment: str = "") -> str:
    """``runs/<Mon DD_HH-MM-SS>_<host><comment>``, torch's default run directory."""
    stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
    return storage.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


class SummaryWriter(MediaMethodsMixin, RichMethodsMixin, FileMethodsMixin, GraphMethodsMixin, CompatMixin):
    """Writes TensorBoard event files for a run; ``torch.utils.tensorboard.SummaryWriter``'s API.

    All ``add_*`` methods validate and convert their arguments in the caller's thread and
    return at once; a background thread encodes and writes. Data are written at least
    every ``flush_secs`` seconds, on ``flush()``, on ``close()`` and at interpreter exit.

    Args:
        log_dir: The run directory (local path or fsspec URL). Defaults to
            ``runs/<date>_<host><comment>``.
        comment: Appended to the default ``log_dir``; ignored when ``log_dir`` is given.
        purge_step: Write a restart marker at this step: readers drop data written
            earlier at this step or later (after a crash and resume).
        max_queue: Pending items at which the writer thread is woken early.
        flush_secs: The longest time accepted data wait before being written.
        filename_suffix: Appended to the event file's name.
        rank: This process's rank in a distributed job; by default from
            ``torch.distributed`` or the ``RANK``/``LOCAL_RANK`` environment variables, else 0.
            Only rank 0 writes: other ranks get a ``NullSummaryWriter`` that accepts every
            call and writes nothing.
        per_rank: Every rank writes, each into its own run ``<log_dir>/rank<k>``.
        logdir: tensorboardX's name for ``log_dir``.
        write_to_disk: tensorboardX's switch: False gives a ``NullSummaryWriter``, which
            accepts every call and writes nothing.

    Example:
        >>> with SummaryWriter(tmp_dir) as w:  # doctest: +SKIP
        ...     w.add_scalar("loss", 0.25, global_step=1)
    """

    def __new__(
        cls,
        *args: Any,
        rank: int | None = None,
        per_rank: bool = False,
        write_to_disk: bool = True,
        **kwargs: Any,
    ) -> Any:
        if write_to_disk and (per_rank or resolve_rank(rank) == 0):
            return super().__new__(cls)
        null = super().__new__(NullSummaryWriter)
        if not issubclass(NullSummaryWriter, cls):  # a subclass of SummaryWriter: Python won't init it
            null.__init__(*args, rank=rank, per_rank=per_rank, write_to_disk=write_to_disk, **kwargs)
        return null

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 1024,
        flush_secs: float = 2.0,
        filename_suffix: str = "",
        *,
        rank: int | None = None,
        per_rank: bool = False,
        logdir: str | None = None,
        write_to_disk: bool = True,
    ) -> None:
        if log_dir is None:
            log_dir = logdir
        if log_dir is None:
            log_dir = default_logdir(comment)
        log_dir = str(log_dir)
        self.rank = resolve_rank(rank)
        if per_rank:
            log_dir = rank_log_dir(log_dir, self.rank)
        purge_at = None if purge_step is None else check_step(purge_step)
        self.log_dir = log_dir
        self._options = {"max_queue": max_queue, "flush_secs": flush_secs, "filename_suffix": filename_suffix}
        self._writer = EventFileWriter(log_dir, **self._options)
        self._scalar_queue = self._writer._queue
        self._wake_at = self._writer._wake_at
        self._sub_writers: dict[str, EventFileWriter] = {}
        self._sub_tags: dict[str, tuple[str, str]] = {}  # add_scalars run -> (main_tag, key)
        self._file_writers: dict[str, FileWriter] = {}
        self._exported: dict[str, int] = {}  # event file -> bytes already exported to JSON
        if purge_at is not None:
            start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
            self._writer.add_event(event_pb2.Event(wall_time=time.time(), step=purge_at, session_log=start))

    # -- scalars -----------------------------------------------------------------------

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
        *,
        display_name: str = "",
        summary_description: str = "",
    ) -> None:
        """Log one scalar, in the form torch writes it.

        By default (``new_style=False``) a TF1 ``simple_value``, a float32 that every reader
        reads (TensorBoard, ``EventAccumulator``, tbparse, TensorFlow's ``summary_iterator``);
        ``double_precision`` is then ignored, as in torch. With ``new_style=True``, a rank-0
        tensor under the scalars plugin, float32 or, with ``double_precision``, float64 (which
        TensorBoard's default loader leaves out: a warning says so). NaN and ±inf are written
        as they are.

        Args:
            tag: The series name.
            scalar_value: A number, a numeric string, or a one-element array or tensor.
            global_step: The step (default 0); a float is truncated to an int, as in torch.
            walltime: Seconds since the epoch (default now).
            new_style: Write the tensor form instead of ``simple_value``.
            double_precision: With ``new_style``, write a float64 tensor.
            display_name: tensorboardX's keyword: the tag's display name (in its metadata).
            summary_description: tensorboardX's keyword: the tag's description.
        """
        if type(tag) is not str or not tag:
            tag = check_tag(tag)
        if type(scalar_value) is not float:
            scalar_value = scalar_float(scalar_value, name="scalar_value")
        if type(global_step) is not int or not _INT64_MIN <= global_step <= _INT64_MAX:
            global_step = check_step(global_step)
        wall_time = _now() if walltime is None else check_walltime(walltime)
        writer = self._writer
        if new_style or display_name or summary_description or writer._failed:
            writer._check()
            if new_style:
                if double_precision:
                    warnings.warn(
                        "add_scalar(new_style=True, double_precision=True) writes a float64 tensor, "
                        "as torch does; TensorBoard's default loader does not show float64 scalars",
                        stacklevel=2,
                    )
                summary = scalar_pb(
                    tag,
                    scalar_value,
                    double=double_precision,
                    display_name=display_name,
                    description=summary_description,
                )
            else:
                summary = simple_scalar_pb(
                    tag, scalar_value, display_name=display_name, description=summary_description
                )
            writer.add_summary(summary, global_step, wall_time)
            return
        # EventFileWriter.add_scalar, inlined: this is the hottest path of the package.
        queue = self._scalar_queue
        queue.append((tag, scalar_value, global_step, wall_time))
        if len(queue) >= self._wake_at:
            writer._kick(queue)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: Mapping[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log several scalars under one chart: each goes to run ``<log_dir>/<main_tag>_<key>``.

        This is torch's layout: one sub-run per key, every one with the tag ``main_tag``,
        each value a ``simple_value`` as ``add_scalar`` writes it.
        """
        main_tag = check_tag(main_tag, "main_tag")
        if not isinstance(tag_scalar_dict, Mapping):
            raise TypeError(f"tag_scalar_dict must be a mapping, got {type(tag_scalar_dict).__name__}")
        step = check_step(global_step)
        wall_time = check_walltime(walltime)
        values = {
            check_tag(k, "tag_scalar_dict key"): scalar_float(v, name=f"tag_scalar_dict[{k!r}]")
            for k, v in tag_scalar_dict.items()
        }
        self._check_open()
        for key, value in values.items():
            run_dir = storage.join(self.log_dir, f"{main_tag.replace('/', '_')}_{key}")
            writer = self._sub_writers.get(run_dir)
            if writer is None:
                writer = self._sub_writers[run_dir] = EventFileWriter(run_dir, **self._options)
                self._sub_tags[run_dir] = (main_tag, key)
            writer.add_scalar(main_tag, value, step, wall_time)

    # -- text, tensors, summaries ----------------------------------------------------

    def add_text(
        self,
        tag: str,
        text_string: str | Sequence[str],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log Markdown text under the tag ``<tag>/text_summary``, as torch does.

        A string is written as torch writes it, a one-element string vector (TensorBoard
        shows it in a one-cell table); a (nested) list of strings is shown as a table.
        """
        tag = check_tag(tag)
        if not isinstance(text_string, str):
            array = np.asarray(text_string, dtype=object)
            if array.size == 0 or not all(isinstance(x, str) for x in array.reshape(-1)):
                raise TypeError(
                    f"text_string must be a str or an array of str, got {type(text_string).__name__}"
                )
            text_string = array
        if isinstance(text_string, str):
            text_string = np.array([text_string], dtype=object)
        self._add(text_pb(f"{tag}/text_summary", text_string), global_step, walltime)

    def add_tensor(
        self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Log a tensor of any shape as it is (plugin ``tensor``)."""
        tag = check_tag(tag)
        self._add(tensor_pb(tag, to_numpy(tensor, name="tensor")), global_step, walltime)

    def add_summary(
        self, summary: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Log a ready ``Summary`` proto, e.g. from a custom plugin's summary builder.

        Accepts tbkit's ``Summary`` or any wire-compatible message (TensorFlow's,
        TensorBoard's) or its serialized bytes. As for every kind, metadata is kept only on
        each tag's first value in the file.
        """
        summary = as_message(summary, summary_pb2.Summary, "summary")
        for value in summary.value:
            check_tag(value.tag, "summary value tag")
        self._add(summary, global_step, walltime)

    # -- lifecycle ---------------------------------------------------------------------

    def _add(self, summary: summary_pb2.Summary, global_step: Any, walltime: Any) -> None:
        self._writer.add_summary(summary, check_step(global_step), check_walltime(walltime))

    def _check_open(self) -> None:
        self._writer._check()

    def get_logdir(self) -> str:
        """The run directory this writer writes to."""
        return self.log_dir

    def flush(self) -> None:
        """Write everything logged so far to disk."""
        self._writer.flush()
        for writer in self._sub_writers.values():
            writer.flush()

    def close(self) -> None:
        """Write everything logged and close the files. Calling it again does nothing."""
        errors = []
        for writer in [self._writer, *self._sub_writers.values()]:
            try:
                writer.close()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# -- the writer of a rank that does not write ----------------------------------------


def _ignore(self: Any, *args: Any, **kwargs: Any) -> None:
    return None


class NullSummaryWriter(SummaryWriter):
    """The writer of a rank that does not write: every method is accepted and does nothing.

    It creates no directory, no file and no thread. ``log_dir`` and ``rank`` are set as
    for a real writer, so code that builds paths from ``get_logdir()`` still works.
    ``SummaryWriter(...)`` returns one on a non-zero rank unless ``per_rank=True``.

    Example:
        >>> w = SummaryWriter("runs/exp", rank=1)
        >>> type(w).__name__, w.get_logdir()
        ('NullSummaryWriter', 'runs/exp')
        >>> w.add_scalar("loss", 0.5, 1)  # nothing is written
    """

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        *args: Any,
        rank: int | None = None,
        per_rank: bool = False,
        logdir: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.rank = resolve_rank(rank)
        log_dir = log_dir if log_dir is not None else logdir
        log_dir = default_logdir(comment) if log_dir is None else str(log_dir)
        self.log_dir = rank_log_dir(log_dir, self.rank) if per_rank else log_dir
        self._sub_writers = {}

    @property
    def file_writer(self) -> Any:
        """A file writer that writes nothing (tensorboardX's ``DummyFileWriter``)."""
        return NullFileWriter(self.log_dir)

    @property
    def all_writers(self) -> dict[str, Any]:
        """This writer's one null file writer, by directory."""
        return {self.log_dir: self.file_writer}

    def _get_file_writer(self) -> Any:
        return self.file_writer

    def export_scalars_to_json(self, path: str) -> None:
        """Write ``{}``: this writer logged nothing."""
        with open(path, "w", encoding="utf-8") as file:
            file.write("{}")


class NullFileWriter:
    """torch's ``FileWriter`` methods, each accepting its arguments and writing nothing."""

    def __init__(self, log_dir: str) -> None:
        self._log_dir = log_dir

    def get_logdir(self) -> str:
        """The directory it would write to."""
        return self._log_dir

    add_event = add_summary = add_graph = add_onnx_graph = flush = close = reopen = _ignore


# Every method that would write (add_*, flush, close, ...) does nothing: a method added to
# SummaryWriter later is covered without a change here (tests/writer/test_rank.py checks).
for _name in dir(SummaryWriter):
    if _name.startswith("add_") or _name in ("flush", "close", "end_hparams_session", "_add", "_check_open"):
        setattr(NullSummaryWriter, _name, _ignore)
del _name
