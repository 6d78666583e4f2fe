"""``SummaryWriter`` methods that write plain files beside the event files, not events.

Embeddings (TensorBoard's projector) and profiler traces live in files of their own; the
work is done by :mod:`tbkit.plugins.projector.files` and :mod:`tbkit.profiler`, imported
on first use. These are thin wrappers that put the files in the writer's run directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tbkit.writer._values import check_step, check_tag


class FileMethodsMixin:
    """``add_embedding`` and ``add_trace`` for a writer with a ``log_dir``."""

    log_dir: str

    def add_embedding(
        self,
        mat: Any,
        metadata: Sequence[Any] | Any | None = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: Sequence[Any] | None = None,
    ) -> None:
        """Write an embedding for TensorBoard's projector (torch's ``add_embedding``).

        Files go to ``<log_dir>/<global_step:05>/<tag>/`` (``tensors.tsv``, ``metadata.tsv``,
        ``sprite.png``) and the embedding is added to ``<log_dir>/projector_config.pbtxt``
        after those already listed there, also by earlier writers of the same run.

        Args:
            mat: ``N×D`` values, one row per data point.
            metadata: One label per point; with ``metadata_header``, one row of labels per point.
            label_img: ``N×C×H×W`` thumbnails (C in 1, 3, 4; floats in [0, 1] or uint8).
            global_step: The step (default 0).
            tag: The embedding's name.
            metadata_header: Column names of multi-column metadata.

        Raises:
            ValueError: ``mat`` is not 2-D, or ``metadata``/``label_img`` do not have one
                entry per row of ``mat`` (the message names the argument).

        Example:
            >>> writer.add_embedding(torch.randn(100, 5), metadata=labels, tag="words")  # doctest: +SKIP
        """
        from tbkit.plugins.projector.files import write_embedding

        write_embedding(
            self.log_dir,
            mat,
            metadata,
            label_img,
            global_step=check_step(global_step),
            tag=check_tag(tag),
            metadata_header=metadata_header,
        )

    def add_trace(self, trace: Any, session: str | None = None, worker: str | None = None) -> str:
        """Write a Chrome trace-event JSON trace for the profile viewers (tbkit only).

        Written gzip'ed as ``<log_dir>/plugins/profile/<session>/<worker>.pt.trace.json.gz``,
        the layout of :func:`tbkit.profiler.trace_handler`, so JAX, TensorFlow or
        hand-made traces sit beside PyTorch's.

        Args:
            trace: A dict with a ``traceEvents`` list or a list of events; a path to a
                ``.json``/``.json.gz`` file; or the bytes of one.
            session: The session directory; default: a new one named by the current time.
            worker: The worker (host) name; default ``<hostname>_<pid>``.

        Returns:
            The path of the written file.

        Raises:
            ValueError: ``trace`` is not trace-event JSON.

        Example:
            >>> events = [{"name": "step", "ph": "X", "ts": 0, "dur": 5, "pid": 1, "tid": 1}]
            >>> writer.add_trace({"traceEvents": events})  # doctest: +SKIP
        """
        from tbkit.profiler import write_trace

        return write_trace(self.log_dir, trace, session=session, worker=worker)
