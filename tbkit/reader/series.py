"""One time series in memory: its metadata and its points, appended in blocks.

Scalar series keep NumPy columns (step int64, wall time float64, value float64) as a
list of blocks concatenated on demand; other series keep one stored object per point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tbkit.provider import DataClass

__all__ = ["SeriesData", "SeriesMeta"]

_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0, dtype=np.float64)


@dataclass(frozen=True)
class SeriesMeta:
    """What a series' first value said about it (remembered per run and tag)."""

    plugin_name: str
    data_class: DataClass
    plugin_content: bytes = b""
    display_name: str = ""
    description: str = ""


@dataclass(eq=False)
class SeriesData:
    """The points of one (run, tag) series.

    Attributes:
        meta: The series' metadata.
        refused: True when its plugin payload is of a newer version than known: no points are kept.
    """

    tag: str
    meta: SeriesMeta
    refused: bool = False
    _steps: list[np.ndarray] = field(default_factory=list)
    _walls: list[np.ndarray] = field(default_factory=list)
    _values: list[np.ndarray] = field(default_factory=list)
    _pending: list[tuple[int, float, object]] = field(default_factory=list)
    _count: int = 0

    @property
    def is_scalar(self) -> bool:
        """True for SCALAR series (NumPy float64 values)."""
        return self.meta.data_class is DataClass.SCALAR

    def __len__(self) -> int:
        return self._count

    def add(self, step: int, wall_time: float, value: object) -> None:
        """Append one point."""
        self._pending.append((step, wall_time, value))
        self._count += 1

    def add_block(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Append points given as aligned arrays (scalar series)."""
        if not len(steps):
            return
        self._flush()
        self._steps.append(steps)
        self._walls.append(wall_times)
        self._values.append(values)
        self._count += len(steps)

    def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self._steps.append(np.array([p[0] for p in pending], dtype=np.int64))
        self._walls.append(np.array([p[1] for p in pending], dtype=np.float64))
        if self.is_scalar:
            self._values.append(np.array([p[2] for p in pending], dtype=np.float64))
        else:
            objects = np.empty(len(pending), dtype=object)
            for i, p in enumerate(pending):
                objects[i] = p[2]
            self._values.append(objects)

    def _consolidate(self) -> None:
        self._flush()
        if len(self._steps) > 1:
            self._steps = [np.concatenate(self._steps)]
            self._walls = [np.concatenate(self._walls)]
            self._values = [np.concatenate(self._values)]

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(steps, wall_times, values)`` of every point, in the order written."""
        self._consolidate()
        if not self._steps:
            empty_values = _EMPTY_F if self.is_scalar else np.zeros(0, dtype=object)
            return _EMPTY_I, _EMPTY_F, empty_values
        return self._steps[0], self._walls[0], self._values[0]

    def blocks(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The points as the blocks they were appended in (no concatenation)."""
        self._flush()
        return list(zip(self._steps, self._walls, self._values, strict=True))

    def replace(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Make these arrays the series' only block (e.g. views into a frame's columns)."""
        self._pending = []
        self._steps, self._walls, self._values = [steps], [wall_times], [values]
        self._count = len(steps)

    def last_step(self) -> int | None:
        """The step of the last point written, or None for an empty series."""
        if self._pending:
            return self._pending[-1][0]
        return int(self._steps[-1][-1]) if self._steps else None

    def purge_from(self, step: int) -> int:
        """Drop every point with ``step >= step``; returns how many were dropped."""
        if not self._count:
            return 0
        steps, walls, values = self.columns()
        keep = steps < step
        dropped = int(len(keep) - np.count_nonzero(keep))
        if dropped:
            self.replace(steps[keep], walls[keep], values[keep])
        return dropped
