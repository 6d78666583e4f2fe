"""SummaryWriter methods for histograms, images, figures and audio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tbkit._arrays import to_float, to_numpy
from tbkit.plugins.audio.summary import clip_samples, legacy_audio_pb
from tbkit.plugins.histograms.legacy import histogram_proto_pb
from tbkit.plugins.histograms.summary import Bins, histogram_raw_pb
from tbkit.plugins.images.convert import encode_png, to_hwc, to_uint8
from tbkit.plugins.images.summary import legacy_image_pb
from tbkit.proto import summary_pb2
from tbkit.writer._values import check_tag


class MediaMethodsMixin:
    """``add_histogram``, ``add_image`` and their kin; mixed into ``SummaryWriter``."""

    def _add(self, summary: summary_pb2.Summary, global_step: Any, walltime: Any) -> None:
        raise NotImplementedError  # provided by SummaryWriter

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
        """Log a histogram of ``values`` as torch does: a TF1 ``HistogramProto``.

        Args:
            bins: ``"tensorflow"`` (default: TensorFlow 1's default edges, as torch's
                default), a bucket count (equal widths from min to max), a NumPy strategy
                such as ``"auto"``, or the edges.
            max_bins: Merges neighbouring buckets until there are at most this many, as torch.
        """
        tag = check_tag(tag)
        array = to_numpy(values, name="values")
        if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
            raise TypeError(f"values must be numeric, got dtype {array.dtype}")
        self._add(histogram_proto_pb(tag, array, bins, max_bins), global_step, walltime)

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
        """Log one image, PNG-encoded, as a TF1 ``Summary.Image`` (torch's form).

        Args:
            img_tensor: An array laid out as ``dataformats`` (``CHW``, ``HWC``, ``HW`` ...),
                with 1, 3 or 4 channels; uint8 in [0, 255], or float in [0, 1].
        """
        tag = check_tag(tag)
        if not isinstance(dataformats, str):
            raise TypeError(f"dataformats must be a str, got {type(dataformats).__name__}")
        hwc = to_uint8(to_hwc(to_numpy(img_tensor, name="img_tensor"), dataformats))
        height, width, channels = hwc.shape
        summary = legacy_image_pb(tag, encode_png(hwc), width=width, height=height, channels=channels)
        self._add(summary, global_step, walltime)

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
        """Log an audio clip as 16-bit PCM WAV in a TF1 ``Summary.Audio`` (torch's form).

        Args:
            snd_tensor: Samples in [-1, 1], shape ``(L,)`` or ``(1, L)`` (mono), or
                ``(L, C)`` for ``C`` channels. Integer samples are scaled by their dtype's range.
            sample_rate: Samples per second.
        """
        tag = check_tag(tag)
        samples = clip_samples(to_numpy(snd_tensor, name="snd_tensor"), name="snd_tensor")
        if isinstance(sample_rate, bool) or not isinstance(sample_rate, int | np.integer) or sample_rate <= 0:
            raise ValueError(f"sample_rate must be a positive int, got {sample_rate!r}")
        self._add(legacy_audio_pb(tag, samples, int(sample_rate)), global_step, walltime)
