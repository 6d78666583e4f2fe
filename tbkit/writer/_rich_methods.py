"""SummaryWriter methods for hparams, PR curves, custom scalars, meshes, videos and boxed images."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tbkit._arrays import to_float, to_numpy
from tbkit.plugins.custom_scalars.summary import LayoutDict, layout_from_dict, layout_pb
from tbkit.plugins.hparams.api import Discrete, HParam, Metric, Status
from tbkit.plugins.hparams.summary import HParamValue, experiment_pb, session_end_pb, session_start_pb
from tbkit.plugins.images.convert import encode_png, to_hwc, to_uint8
from tbkit.plugins.images.media import draw_boxes, encode_gif, video_frames
from tbkit.plugins.images.summary import legacy_image_pb
from tbkit.plugins.mesh.summary import mesh_pb
from tbkit.plugins.pr_curves.summary import compute_curve, pr_curve_pb
from tbkit.plugins.scalars.summary import simple_scalar_pb
from tbkit.proto import event_pb2, summary_pb2
from tbkit.record import storage
from tbkit.writer._values import check_step, check_tag
from tbkit.writer.event_io import write_event_file


def _hparam_value(name: str, value: Any) -> HParamValue:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    try:
        return to_float(value, name=f"hparam_dict[{name!r}]")
    except (TypeError, ValueError):
        raise TypeError(
            f"hparam_dict[{name!r}] must be bool, int, float, str or None, got {type(value).__name__}"
        ) from None


def _status(status: Status | str | None) -> Status | None:
    if status is None or isinstance(status, Status):
        return status
    try:
        return Status[str(status).upper()]
    except KeyError:
        raise ValueError(
            f"status must be one of {[s.name.lower() for s in Status]} or None, got {status!r}"
        ) from None


def _to_ntchw(video: np.ndarray, dataformats: str) -> np.ndarray:
    if not isinstance(dataformats, str):
        raise TypeError(f"dataformats must be a str, got {type(dataformats).__name__}")
    fmt = dataformats.upper()
    target = "NTCHW" if len(fmt) == 5 else "TCHW"
    if sorted(fmt) != sorted(target):
        raise ValueError(f"dataformats must be an order of NTCHW or TCHW, got {dataformats!r}")
    if video.ndim != len(fmt):
        raise ValueError(f"vid_tensor has {video.ndim} axes, dataformats {dataformats!r} names {len(fmt)}")
    return np.transpose(video, [fmt.index(axis) for axis in target])


def _domain(name: str, value: Any, domains: Mapping[str, Sequence[Any]]) -> Discrete | None:
    """The declared domain of ``name``; a bool without one is ``Discrete([False, True])``.

    TensorBoard's own ``hp.HParam(name, hp.Discrete([False, True]))`` is how a bool is
    declared: its dashboard then offers both values as a filter.
    """
    if name in domains:
        return Discrete(domains[name])
    return Discrete([False, True]) if isinstance(value, bool) else None


def _fresh_run_name(log_dir: str, now: float) -> str:
    """``str(now)`` as torch names a session's sub-run, made unique among the runs of ``log_dir``."""
    name = str(now)
    while storage.exists(storage.join(log_dir, name)):
        now += 1e-6
        name = str(now)
    return name


class RichMethodsMixin:
    """The ``add_*`` methods of the less common kinds; mixed into ``SummaryWriter``."""

    log_dir: str
    _own_session = False  # the writer's own run holds a session

    def _add(self, summary: summary_pb2.Summary, global_step: Any, walltime: Any) -> None:
        raise NotImplementedError  # provided by SummaryWriter

    # -- hparams -------------------------------------------------------------------

    def add_hparams(
        self,
        hparam_dict: Mapping[str, Any],
        metric_dict: Mapping[str, Any],
        hparam_domain_discrete: Mapping[str, Sequence[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
        *,
        status: Status | str | None = "success",
    ) -> None:
        """Record a training session's hyperparameters and final metrics (torch's signature).

        Unlike torch, the first session is this writer's own run (its charts and its hparams
        row are one run). Every later call starts a new session in a sub-run
        ``<log_dir>/<time.time()>``, torch's layout, so calling it in a loop gives one session
        per call, never one merged session; a call with ``run_name`` writes the sub-run
        ``<log_dir>/<run_name>``. Each metric is also written as a scalar at ``global_step``
        (pass the final step so it ends its series).

        Args:
            hparam_dict: Name to value: bool, int, float, str or None (left out).
            metric_dict: Metric tag to its final value.
            hparam_domain_discrete: Name to the list of values that hyperparameter can take.
            run_name: Write into this sub-run instead of the writer's run.
            global_step: The step of the metric scalars.
            status: The session's status (``"success"``, ``"failure"``, ``"running"``,
                ``"unknown"``) or None to leave the session open (see ``end_hparams_session``).

        Example:
            >>> for i in range(5):  # five sessions  # doctest: +SKIP
            ...     writer.add_hparams({"lr": 0.1 * i}, {"hparam/accuracy": 10 * i})
        """
        if not isinstance(hparam_dict, Mapping) or not isinstance(metric_dict, Mapping):
            raise TypeError("hparam_dict and metric_dict must be dicts")
        values = {check_tag(k, "hparam name"): _hparam_value(k, v) for k, v in hparam_dict.items()}
        metrics = {
            check_tag(k, "metric tag"): to_float(v, name=f"metric_dict[{k!r}]")
            for k, v in metric_dict.items()
        }
        domains = dict(hparam_domain_discrete or {})
        unknown = set(domains) - set(values)
        if unknown:
            raise ValueError(
                f"hparam_domain_discrete names hyperparameters not in hparam_dict: {sorted(unknown)}"
            )
        end_status = _status(status)
        hparams = [HParam(name, _domain(name, values[name], domains)) for name in values]
        now = time.time()
        summaries = [
            experiment_pb(hparams, [Metric(tag) for tag in metrics], values=values, time_created_secs=now),
            session_start_pb(values, start_time_secs=now),
            *(simple_scalar_pb(tag, value) for tag, value in metrics.items()),
        ]
        if end_status is not None:
            summaries.append(session_end_pb(end_status, end_time_secs=now))
        step = check_step(global_step)
        if run_name is None:
            if not self._own_session:
                self._own_session = True
                for summary in summaries:
                    self._add(summary, step, now)
                return
            run_name = _fresh_run_name(self.log_dir, now)
        # torch's layout: a run of its own, written at once
        events = [event_pb2.Event(wall_time=now, step=step, summary=summary) for summary in summaries]
        write_event_file(storage.join(self.log_dir, str(run_name)), events)

    def add_hparams_config(
        self, hparams: Sequence[HParam], metrics: Sequence[Metric], *, time_created_secs: float | None = None
    ) -> None:
        """Declare the experiment: hyperparameters with their domains, and metrics with their groups.

        Write it once, usually in the log directory's root run; each session then only
        calls ``add_hparams``.
        """
        if not all(isinstance(h, HParam) for h in hparams) or not all(isinstance(m, Metric) for m in metrics):
            raise TypeError(
                "hparams must be tbkit.hparams.HParam objects and metrics tbkit.hparams.Metric objects"
            )
        created = time.time() if time_created_secs is None else float(time_created_secs)
        self._add(experiment_pb(list(hparams), list(metrics), time_created_secs=created), 0, created)

    def end_hparams_session(self, status: Status | str = "success") -> None:
        """Mark this run's hparams session as ended with ``status``."""
        end_status = _status(status) or Status.UNKNOWN
        now = time.time()
        self._add(session_end_pb(end_status, end_time_secs=now), 0, now)

    # -- PR curves -----------------------------------------------------------------

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve of binary ``labels`` against ``predictions`` in [0, 1]."""
        tag = check_tag(tag)
        labels_np = to_numpy(labels, name="labels")
        preds_np = to_numpy(predictions, name="predictions")
        w = None if weights is None else to_numpy(weights, name="weights")
        data = compute_curve(labels_np, preds_np, int(num_thresholds), w)
        self._add(pr_curve_pb(tag, data), global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a PR curve from precomputed per-threshold counts, precision and recall."""
        tag = check_tag(tag)
        names = (
            "true_positive_counts",
            "false_positive_counts",
            "true_negative_counts",
            "false_negative_counts",
        )
        rows = [true_positive_counts, false_positive_counts, true_negative_counts, false_negative_counts]
        arrays = [to_numpy(r, name=n).reshape(-1) for r, n in zip(rows, names, strict=True)]
        arrays += [
            to_numpy(precision, name="precision").reshape(-1),
            to_numpy(recall, name="recall").reshape(-1),
        ]
        if {a.size for a in arrays} != {int(num_thresholds)}:
            sizes = [a.size for a in arrays]
            raise ValueError(f"every row must hold num_thresholds={num_thresholds} values, got sizes {sizes}")
        self._add(pr_curve_pb(tag, np.stack(arrays)), global_step, walltime)

    # -- custom scalars ------------------------------------------------------------

    def add_custom_scalars(self, layout: LayoutDict) -> None:
        """Log a custom-scalars layout: ``{category: {title: ["Multiline", [tag regexes]]}}``.

        A chart may also be ``["Margin", [value_tag, lower_tag, upper_tag]]``.
        """
        self._add(layout_pb(layout_from_dict(layout)), 0, None)

    def add_custom_scalars_multilinechart(
        self, tags: Sequence[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """Log a layout with one multiline chart of ``tags`` (regexes)."""
        self.add_custom_scalars({category: {title: ["Multiline", list(tags)]}})

    def add_custom_scalars_marginchart(
        self, tags: Sequence[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """Log a layout with one margin chart of ``[value, lower, upper]`` tags."""
        self.add_custom_scalars({category: {title: ["Margin", list(tags)]}})

    # -- meshes, videos, boxes -----------------------------------------------------

    def add_mesh(
        self,
        tag: str,
        vertices: Any,
        colors: Any = None,
        faces: Any = None,
        config_dict: dict[str, Any] | None = None,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a mesh or point cloud: vertices ``[B, N, 3]``, colors ``[B, N, 3]``, faces ``[B, F, 3]``."""
        tag = check_tag(tag)
        summary = mesh_pb(
            tag,
            to_numpy(vertices, name="vertices"),
            None if faces is None else to_numpy(faces, name="faces"),
            None if colors is None else to_numpy(colors, name="colors"),
            config_dict,
        )
        self._add(summary, global_step, walltime)

    def add_video(
        self,
        tag: str,
        vid_tensor: Any,
        global_step: int | None = None,
        fps: float = 4,
        walltime: float | None = None,
        dataformats: str = "NTCHW",
    ) -> None:
        """Log videos ``(N, T, C, H, W)`` as one animated GIF (the N videos in a grid).

        Args:
            dataformats: The axes of ``vid_tensor`` (tensorboardX's keyword): an order of
                ``NTCHW``, or of ``TCHW`` for one video.
        """
        tag = check_tag(tag)
        frames = video_frames(_to_ntchw(to_numpy(vid_tensor, name="vid_tensor"), dataformats))
        gif = encode_gif(frames, float(fps))
        _, height, width, channels = frames.shape
        summary = legacy_image_pb(tag, gif, width=width, height=height, channels=channels)
        self._add(summary, global_step, walltime)

    def add_image_with_boxes(
        self,
        tag: str,
        img_tensor: Any,
        box_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        rescale: float = 1,
        dataformats: str = "CHW",
        labels: Sequence[str] | None = None,
    ) -> None:
        """Log an image with boxes ``[K, 4]`` (x_min, y_min, x_max, y_max in pixels) drawn on it."""
        tag = check_tag(tag)
        hwc = to_uint8(to_hwc(to_numpy(img_tensor, name="img_tensor"), dataformats))
        boxes = to_numpy(box_tensor, name="box_tensor")
        if boxes.size and (boxes.ndim != 2 or boxes.shape[1] != 4):
            raise ValueError(f"box_tensor must have shape [K, 4], got {boxes.shape}")
        drawn = draw_boxes(hwc, boxes, labels, rescale=float(rescale))
        height, width, channels = drawn.shape
        summary = legacy_image_pb(tag, encode_png(drawn), width=width, height=height, channels=channels)
        self._add(summary, global_step, walltime)
