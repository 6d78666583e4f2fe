"""``SummaryWriter``: the user-facing writer, a drop-in for ``torch.utils.tensorboard``'s."""

from __future__ import annotations

import datetime
import socket
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbkit._arrays import to_float, to_numpy
from tbkit.plugins.audio.summary import audio_pb, clip_samples, encode_wav
from tbkit.plugins.histograms.summary import Bins, compute_buckets, histogram_pb, histogram_raw_pb
from tbkit.plugins.images.convert import encode_png, to_hwc, to_uint8
from tbkit.plugins.images.summary import image_pb
from tbkit.plugins.scalars.summary import scalar_pb
from tbkit.plugins.tensors.summary import tensor_pb
from tbkit.plugins.text.summary import text_pb
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import storage
from tbkit.writer._file_methods import FileMethodsMixin
from tbkit.writer._graph_methods import GraphMethodsMixin
from tbkit.writer._rich_methods import RichMethodsMixin
from tbkit.writer._values import _INT64_MAX, _INT64_MIN, check_step, check_tag, check_walltime
from tbkit.writer.event_file import EventFileWriter

_now = time.time


def default_logdir(comment: str = "") -> str:
    """``runs/<Mon DD_HH-MM-SS>_<host><comment>``, torch's default run directory."""
    stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
    return storage.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


class SummaryWriter(RichMethodsMixin, FileMethodsMixin, GraphMethodsMixin):
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

    Example:
        >>> with SummaryWriter(tmp_dir) as w:  # doctest: +SKIP
        ...     w.add_scalar("loss", 0.25, global_step=1)
    """

    def __new__(cls, *args: Any, rank: int | None = None, per_rank: bool = False, **kwargs: Any) -> Any:
        from tbkit.writer._rank import NullSummaryWriter, resolve_rank

        if per_rank or resolve_rank(rank) == 0:
            return super().__new__(cls)
        null = super().__new__(NullSummaryWriter)
        if not issubclass(NullSummaryWriter, cls):  # a subclass of SummaryWriter: Python won't init it
            null.__init__(*args, rank=rank, per_rank=per_rank, **kwargs)
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
    ) -> None:
        from tbkit.writer._rank import rank_log_dir, resolve_rank

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
        new_style: bool = True,
        double_precision: bool = False,
    ) -> None:
        """Log one scalar as a rank-0 float32 tensor (float64 with ``double_precision``).

        ``new_style`` is accepted for torch compatibility; tbkit always writes the tensor
        form. NaN and ±inf are written as they are.
        """
        if type(tag) is not str or not tag:
            tag = check_tag(tag)
        kind = type(scalar_value)
        if kind is not float:
            scalar_value = to_float(scalar_value, name="scalar_value")
        if type(global_step) is not int or not _INT64_MIN <= global_step <= _INT64_MAX:
            global_step = check_step(global_step)
        wall_time = _now() if walltime is None else check_walltime(walltime)
        writer = self._writer
        if double_precision or writer._failed:
            if double_precision:
                self._add(scalar_pb(tag, scalar_value, double=True), global_step, wall_time)
                return
            writer._check()
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

        This is torch's layout: one sub-run per key, every one with the tag ``main_tag``.
        """
        main_tag = check_tag(main_tag, "main_tag")
        if not isinstance(tag_scalar_dict, Mapping):
            raise TypeError(f"tag_scalar_dict must be a mapping, got {type(tag_scalar_dict).__name__}")
        step = check_step(global_step)
        wall_time = check_walltime(walltime)
        values = {
            check_tag(k, "tag_scalar_dict key"): to_float(v, name=f"tag_scalar_dict[{k!r}]")
            for k, v in tag_scalar_dict.items()
        }
        self._check_open()
        for key, value in values.items():
            run_dir = storage.join(self.log_dir, f"{main_tag.replace('/', '_')}_{key}")
            writer = self._sub_writers.get(run_dir)
            if writer is None:
                writer = self._sub_writers[run_dir] = EventFileWriter(run_dir, **self._options)
            writer.add_scalar(main_tag, value, step, wall_time)

    # -- histograms --------------------------------------------------------------------

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Bins = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log a histogram of ``values`` as ``[k, 3]`` buckets (left, right, count).

        Args:
            bins: ``"tensorflow"`` (default: TensorFlow 2's 30 equal-width buckets from
                min to max), a bucket count, a NumPy strategy such as ``"auto"``, or edges.
            max_bins: Caps the bucket count where ``bins`` leaves it open.
        """
        tag = check_tag(tag)
        array = to_numpy(values, name="values")
        if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
            raise TypeError(f"values must be numeric, got dtype {array.dtype}")
        buckets = compute_buckets(array, bins, max_bins)
        self._add(histogram_pb(tag, buckets), global_step, walltime)

    def add_histogram_raw(
        self,
        tag: str,
        min: float,
        max: float,
        num: float,
        sum: float,
        sum_squares: float,
        bucket_limits: Sequence[float],
        bucket_counts: Sequence[float],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a histogram from precomputed statistics, as torch's ``add_histogram_raw``.

        ``bucket_limits[i]`` is the right edge of bucket ``i``; the first bucket starts at ``min``.
        """
        tag = check_tag(tag)
        summary = histogram_raw_pb(
            tag,
            min=to_float(min, name="min"),
            max=to_float(max, name="max"),
            num=to_float(num, name="num"),
            sum=to_float(sum, name="sum"),
            sum_squares=to_float(sum_squares, name="sum_squares"),
            bucket_limits=to_numpy(bucket_limits, name="bucket_limits").reshape(-1).tolist(),
            bucket_counts=to_numpy(bucket_counts, name="bucket_counts").reshape(-1).tolist(),
        )
        self._add(summary, global_step, walltime)

    # -- images, figures, audio, text, tensors -------------------------------------------

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Log one image, PNG-encoded.

        Args:
            img_tensor: An array laid out as ``dataformats`` (``CHW``, ``HWC``, ``HW`` ...),
                with 1, 3 or 4 channels; uint8 in [0, 255], or float in [0, 1].
        """
        tag = check_tag(tag)
        if not isinstance(dataformats, str):
            raise TypeError(f"dataformats must be a str, got {type(dataformats).__name__}")
        hwc = to_uint8(to_hwc(to_numpy(img_tensor, name="img_tensor"), dataformats))
        height, width = hwc.shape[:2]
        self._add(image_pb(tag, [encode_png(hwc)], width=width, height=height), global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Log a batch of images as one grid image, eight per row (torch's layout)."""
        if not isinstance(dataformats, str) or "N" not in dataformats.upper():
            raise ValueError(f"dataformats for add_images must include N, got {dataformats!r}")
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Render a matplotlib figure (or a list of them, as a grid) and log it as an image."""
        from tbkit.writer._figures import render_figures

        images = render_figures(figure, close=close)
        if isinstance(figure, list | tuple):
            self.add_images(tag, np.stack(images), global_step, walltime, dataformats="NHWC")
        else:
            self.add_image(tag, images[0], global_step, walltime, dataformats="HWC")

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Log an audio clip as 16-bit PCM WAV.

        Args:
            snd_tensor: Samples in [-1, 1], shape ``(L,)`` or ``(1, L)`` (mono), or
                ``(L, C)`` for ``C`` channels. Integer samples are scaled by their dtype's range.
            sample_rate: Samples per second.
        """
        tag = check_tag(tag)
        samples = clip_samples(to_numpy(snd_tensor, name="snd_tensor"), name="snd_tensor")
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int | np.integer) or sample_rate <= 0:
            raise ValueError(f"sample_rate must be a positive int, got {sample_rate!r}")
        self._add(audio_pb(tag, [encode_wav(samples, int(sample_rate))]), global_step, walltime)

    def add_text(
        self,
        tag: str,
        text_string: str | Sequence[str],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log Markdown text; a (nested) list of strings is shown as a table."""
        tag = check_tag(tag)
        if not isinstance(text_string, str):
            array = np.asarray(text_string, dtype=object)
            if array.size == 0 or not all(isinstance(x, str) for x in array.reshape(-1)):
                raise TypeError(
                    f"text_string must be a str or an array of str, got {type(text_string).__name__}"
                )
            text_string = array
        self._add(text_pb(tag, text_string), global_step, walltime)

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
        if isinstance(summary, bytes | bytearray):
            data = bytes(summary)
        elif isinstance(summary, summary_pb2.Summary):
            data = None
        elif hasattr(summary, "SerializeToString"):
            data = summary.SerializeToString()
        else:
            raise TypeError(f"summary must be a Summary proto or its bytes, got {type(summary).__name__}")
        if data is not None:
            try:
                summary = summary_pb2.Summary.FromString(data)
            except DecodeError as exc:
                raise ValueError(f"summary does not parse as a Summary: {exc}") from None
        else:
            copy = summary_pb2.Summary()
            copy.CopyFrom(summary)  # the writer thread may strip metadata: never touch the caller's
            summary = copy
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
