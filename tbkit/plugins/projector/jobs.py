"""Background layout jobs (t-SNE, UMAP): started by one request, polled by the next ones.

A job runs in a daemon thread and publishes its iteration and the latest layout; it can be
cancelled. At most :data:`MAX_RUNNING` run at once (starting another cancels the oldest: the
machine has few cores and the UI only ever shows one) and the last :data:`MAX_KEPT` are kept.

Example:
    >>> jobs = JobRegistry()
    >>> job = jobs.start(lambda report: np.zeros((2, 2)), iterations=1)
    >>> job.wait(5.0).state
    'done'
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tbkit.errors import NotFoundError

__all__ = ["ABANDONED_AFTER", "MAX_KEPT", "MAX_RUNNING", "Job", "JobRegistry"]

MAX_RUNNING = 2
MAX_KEPT = 16
ABANDONED_AFTER = 60.0  # seconds without a poll: nobody is watching, the job stops

# report(iteration, layout) -> whether to go on
Report = Callable[[int, np.ndarray], bool]


@dataclass
class Job:
    """One layout being computed.

    Attributes:
        id: The job's id (random hex).
        iterations: The planned number of iterations.
        info: What the job was started with (echoed to the client).
        state: ``"running"``, ``"done"``, ``"cancelled"`` or ``"error"``.
        iteration: The last iteration reported.
        layout: The latest (or final) layout, ``N×dims`` float32, or None before the first report.
        error: Why it failed (state ``"error"``).
        started, finished: Wall times (``finished`` None while running).
    """

    id: str
    iterations: int
    info: dict[str, Any] = field(default_factory=dict)
    state: str = "running"
    iteration: int = 0
    layout: np.ndarray | None = None
    error: str = ""
    started: float = field(default_factory=time.time)
    finished: float | None = None
    polled: float = field(default_factory=time.monotonic)
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def report(self, iteration: int, layout: np.ndarray) -> bool:
        """Publish progress; False once the job was cancelled or abandoned (the computation should stop)."""
        snapshot = np.asarray(layout, dtype=np.float32).copy()
        with self._lock:
            self.iteration = iteration
            self.layout = snapshot
        if time.monotonic() - self.polled > ABANDONED_AFTER:
            self.cancel()
        return not self._cancel.is_set()

    def touch(self) -> None:
        """Note that someone still polls the job (a job nobody polls stops after :data:`ABANDONED_AFTER`)."""
        self.polled = time.monotonic()

    def cancel(self) -> None:
        """Ask the computation to stop at its next report."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> Job:
        """Block until the job ends (or ``timeout`` seconds pass); returns the job."""
        self._done.wait(timeout)
        return self

    def snapshot(self) -> tuple[str, int, np.ndarray | None, str]:
        """``(state, iteration, layout, error)`` read together."""
        with self._lock:
            return self.state, self.iteration, self.layout, self.error

    def _finish(self, state: str, layout: np.ndarray | None = None, error: str = "") -> None:
        with self._lock:
            self.state = state
            if layout is not None:
                self.layout = np.asarray(layout, dtype=np.float32)
                if state == "done":
                    self.iteration = self.iterations
            self.error = error
            self.finished = time.time()
        self._done.set()


class JobRegistry:
    """The jobs of one server."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def start(
        self, compute: Callable[[Report], np.ndarray], *, iterations: int, info: dict[str, Any] | None = None
    ) -> Job:
        """Run ``compute(report)`` in a new thread; it returns the final layout.

        ``compute`` calls ``report(iteration, layout)`` as it goes and stops when it returns False.
        """
        job = Job(id=uuid.uuid4().hex, iterations=iterations, info=dict(info or {}))
        with self._lock:
            running = [j for j in self._jobs.values() if j.state == "running" and not j._cancel.is_set()]
            for old in running[: max(0, len(running) - MAX_RUNNING + 1)]:
                old.cancel()
            self._jobs[job.id] = job
            finished = [k for k, j in self._jobs.items() if j.state != "running"]
            for key in finished[: max(0, len(self._jobs) - MAX_KEPT)]:
                del self._jobs[key]

        def run() -> None:
            try:
                layout = compute(job.report)
            except Exception as exc:  # the job reports any failure; the server goes on
                job._finish("error", error=f"{type(exc).__name__}: {exc}")
                return
            job._finish("cancelled" if job._cancel.is_set() else "done", layout)

        threading.Thread(target=run, name=f"tbkit-projector-{job.id[:8]}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job:
        """The job ``job_id`` (marked as polled); NotFoundError when unknown (or long forgotten)."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no such job: {job_id!r}")
        job.touch()
        return job

    def cancel_all(self) -> None:
        """Cancel every running job (the server is closing)."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel()
