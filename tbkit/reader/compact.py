"""Lossless compact storage of scalar points: about 8 bytes a point instead of 24.

A long-running server keeps every scalar point in memory (the UI fetches full resolution
again on zoom). Stored plainly a point is 24 bytes (int64 step, float64 wall time,
float64 value). A :class:`CompactBlock` keeps the same points exactly:

* steps as a start and a stride when evenly spaced (the usual case: no bytes per point),
  else as int32 differences (int64 when a jump does not fit);
* wall times as differences of their float64 bit patterns, viewed as int64: consecutive
  times a few minutes apart differ by less than 2**31 units in the last place, so the
  differences fit int32, and a cumulative sum gives back the very same bits;
* values as float32 when every value survives the round trip (event files store scalars
  as float32 unless written as doubles), else as float64.

Example:
    >>> block = CompactBlock.encode(np.arange(3), np.array([1.5, 2.5, 3.5]), np.array([0.25, 0.5, 1.0]))
    >>> [a.tolist() for a in block.decode()]
    [[0, 1, 2], [1.5, 2.5, 3.5], [0.25, 0.5, 1.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CompactBlock"]

_I32 = np.iinfo(np.int32)


def _narrow(deltas: np.ndarray) -> np.ndarray:
    """int64 differences as int32 when they all fit, else unchanged."""
    if len(deltas) and (deltas.min() < _I32.min or deltas.max() > _I32.max):
        return deltas
    return deltas.astype(np.int32)


def _undelta(first: int, deltas: np.ndarray) -> np.ndarray:
    """The int64 sequence starting at ``first`` with these differences (wrapping, so exact)."""
    out = np.empty(len(deltas) + 1, dtype=np.int64)
    out[0] = first
    np.cumsum(deltas, dtype=np.int64, out=out[1:])
    out[1:] += np.int64(first)
    return out


@dataclass(frozen=True, eq=False)
class CompactBlock:
    """``n`` scalar points, encoded losslessly (see the module docstring)."""

    n: int
    step0: int
    step_stride: int | None  # evenly spaced steps; else step_deltas
    step_deltas: np.ndarray | None
    wall0: int  # the first wall time's float64 bits as int64
    wall_deltas: np.ndarray
    values: np.ndarray  # float32 or float64

    @classmethod
    def encode(cls, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> CompactBlock:
        """Encode aligned, non-empty columns (steps int64, walls and values float64)."""
        steps = np.asarray(steps, dtype=np.int64)
        bits = np.ascontiguousarray(walls, dtype=np.float64).view(np.int64)
        values = np.asarray(values, dtype=np.float64)
        with np.errstate(over="ignore"):  # wrapping differences are undone exactly by the cumsum
            step_deltas = np.diff(steps)
            wall_deltas = _narrow(np.diff(bits))
        stride: int | None = None
        if len(step_deltas) == 0 or (step_deltas == step_deltas[0]).all():
            stride = int(step_deltas[0]) if len(step_deltas) else 0
            packed_steps = None
        else:
            packed_steps = _narrow(step_deltas)
        with np.errstate(over="ignore", invalid="ignore"):
            narrow = values.astype(np.float32)
        exact = np.array_equal(narrow.astype(np.float64).view(np.int64), values.view(np.int64))
        return cls(
            n=len(steps),
            step0=int(steps[0]),
            step_stride=stride,
            step_deltas=packed_steps,
            wall0=int(bits[0]),
            wall_deltas=wall_deltas,
            values=narrow if exact else values.copy(),
        )

    @property
    def nbytes(self) -> int:
        """Bytes held by the block's arrays."""
        deltas = 0 if self.step_deltas is None else self.step_deltas.nbytes
        return deltas + self.wall_deltas.nbytes + self.values.nbytes

    def steps(self) -> np.ndarray:
        """The steps (int64)."""
        if self.step_deltas is None:
            stride = self.step_stride or 0
            return self.step0 + stride * np.arange(self.n, dtype=np.int64)
        return _undelta(self.step0, self.step_deltas)

    def walls(self) -> np.ndarray:
        """The wall times (float64, bit for bit as given)."""
        return _undelta(self.wall0, self.wall_deltas).view(np.float64)

    def decode(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(steps, wall_times, values)`` as int64, float64, float64."""
        return self.steps(), self.walls(), self.values.astype(np.float64)
