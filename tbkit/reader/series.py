"""One time series in memory: its metadata and its points, appended in blocks.

Scalar series keep NumPy columns (step int64, wall time float64, value float64) as a
list of blocks concatenated on demand; with ``compact=True`` (the server's choice) each
block is a lossless :class:`~tbkit.reader.compact.CompactBlock` of about 8 bytes a point,
decoded when read. Other series keep one stored object per point. The count, the largest
step and wall time, and the last point are kept on the side, so listings need no decoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tbkit.provider import DataClass
from tbkit.reader.compact import CompactBlock

__all__ = ["SeriesData", "SeriesMeta"]

_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0, dtype=np.float64)

_SCALAR = DataClass.SCALAR  # an enum member looked up once (a class attribute lookup costs 10x)
_MAX_COMPACT_BLOCKS = 32  # compact blocks kept before they are merged into one

Columns = tuple[np.ndarray, np.ndarray, np.ndarray]
_Block = Columns | CompactBlock


@dataclass(frozen=True)
class SeriesMeta:
    """What a series' first value said about it (remembered per run and tag)."""

    plugin_name: str
    data_class: DataClass
    plugin_content: bytes = b""
    display_name: str = ""
    description: str = ""


def _decode(block: _Block) -> Columns:
    return block.decode() if isinstance(block, CompactBlock) else block


@dataclass(eq=False, slots=True)
class SeriesData:
    """The points of one (run, tag) series.

    Attributes:
        meta: The series' metadata.
        refused: True when its plugin payload is of a newer version than known: no points are kept.
        compact: Keep scalar points as compact blocks (decoded on every read).
    """

    tag: str
    meta: SeriesMeta
    refused: bool = False
    compact: bool = False
    _blocks: list[_Block] = field(default_factory=list)
    _pending: list[tuple[int, float, object]] | None = (
        None  # made when first needed: one container less a series
    )
    _count: int = 0
    _max_step: int | None = None
    _max_wall: float | None = None
    _last: tuple[int, float, object] | None = None
    # How many of the last blocks were appended since the largest step and wall time and the
    # last point were brought up to date: measured when first asked (a read to a frame never
    # asks). They are always the last blocks; measuring a point twice changes nothing, so a
    # merge leaves one (the merged block) to measure.
    _unmeasured: int = 0

    @property
    def is_scalar(self) -> bool:
        """True for SCALAR series (NumPy float64 values)."""
        return self.meta.data_class is _SCALAR

    def __len__(self) -> int:
        return self._count

    def _note(self, max_step: int, max_wall: float, last: tuple[int, float, object]) -> None:
        self._max_step = max_step if self._max_step is None else max(self._max_step, max_step)
        self._max_wall = max_wall if self._max_wall is None else max(self._max_wall, max_wall)
        self._last = last

    def _measure(self) -> None:
        """Fold the blocks appended unmeasured into the largest step and wall time and the last point."""
        count, self._unmeasured = self._unmeasured, 0
        for steps, walls, values in self._blocks[len(self._blocks) - count :]:  # type: ignore[misc]  # not compact
            self._note(int(steps.max()), float(walls.max()), (int(steps[-1]), float(walls[-1]), values[-1]))

    def add(self, step: int, wall_time: float, value: object) -> None:
        """Append one point."""
        if self._unmeasured:
            self._measure()
        if self._pending is None:
            self._pending = []
        self._pending.append((step, wall_time, value))
        self._count += 1
        self._note(step, wall_time, (step, wall_time, value))

    def add_block(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Append points given as aligned arrays (scalar series); the arrays become the series' own.

        Their largest step and wall time and last point are found when first asked for.
        """
        if not len(steps):
            return
        if self._pending:
            self._flush()
        self._count += len(steps)
        if self.compact and self.is_scalar:  # encoded now: measured before
            self._note(
                int(steps.max()), float(wall_times.max()), (int(steps[-1]), float(wall_times[-1]), values[-1])
            )
            self._append(steps, wall_times, values)
            return
        self._blocks.append((steps, wall_times, values))
        self._unmeasured += 1

    def _append(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> None:
        if self.compact and self.is_scalar:
            self._blocks.append(CompactBlock.encode(steps, walls, values))
            if len(self._blocks) > _MAX_COMPACT_BLOCKS:  # few, large blocks: less overhead per point
                self.columns()
        else:
            self._blocks.append((steps, walls, values))

    def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, None
        steps = np.array([p[0] for p in pending], dtype=np.int64)
        walls = np.array([p[1] for p in pending], dtype=np.float64)
        if self.is_scalar:
            values = np.array([p[2] for p in pending], dtype=np.float64)
        else:
            values = np.empty(len(pending), dtype=object)
            for i, p in enumerate(pending):
                values[i] = p[2]
        self._append(steps, walls, values)

    def columns(self) -> Columns:
        """``(steps, wall_times, values)`` of every point, in the order written."""
        self._flush()
        if not self._blocks:
            empty_values = _EMPTY_F if self.is_scalar else np.zeros(0, dtype=object)
            return _EMPTY_I, _EMPTY_F, empty_values
        if len(self._blocks) == 1:
            return _decode(self._blocks[0])
        parts = [_decode(b) for b in self._blocks]
        merged: Columns = tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[assignment]
        self._blocks = []
        self._append(*merged)  # one block from now on
        if self._unmeasured:  # the merged block holds them
            self._unmeasured = 1
        return merged

    def blocks(self) -> list[Columns]:
        """The points as the blocks they were appended in (decoded, not concatenated)."""
        self._flush()
        return [_decode(b) for b in self._blocks]

    def replace(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Make these arrays the series' only block (e.g. views into a frame's columns)."""
        self._pending = None
        self._blocks = []
        self._unmeasured = 0
        self._count = len(steps)
        self._max_step = self._max_wall = self._last = None
        if len(steps):
            self._append(steps, wall_times, values)
            last = (int(steps[-1]), float(wall_times[-1]), values[-1])
            self._note(int(steps.max()), float(wall_times.max()), last)

    def rebase(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Hold the series' own points (the same, in the same order) in these arrays, e.g. views
        into a frame's columns; unlike :meth:`replace`, nothing about the points is recomputed."""
        if len(steps) != self._count:
            raise ValueError(f"rebase: {len(steps)} points given for a series of {len(self)}")
        self._pending = None
        self._blocks = []
        if len(steps):
            self._append(steps, wall_times, values)
        if self._unmeasured:  # the same points: measured from the new arrays
            self._unmeasured = 1 if len(steps) else 0

    def last_step(self) -> int | None:
        """The step of the last point written, or None for an empty series."""
        if self._unmeasured:
            self._measure()
        return None if self._last is None else self._last[0]

    def last(self) -> tuple[int, float, object] | None:
        """The last point written (step, wall time, stored value), or None for an empty series."""
        if self._unmeasured:
            self._measure()
        return self._last

    def extent(self) -> tuple[int, float] | None:
        """The largest step and wall time of the series, or None when empty."""
        if self._unmeasured:
            self._measure()
        if self._max_step is None or self._max_wall is None:
            return None
        return self._max_step, self._max_wall

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
