"""Matplotlib figures to RGB arrays (matplotlib is optional and imported only here)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tbkit.errors import MissingDependencyError


def render_figures(figure: Any, *, close: bool = True) -> list[np.ndarray]:
    """Render a figure, or each of a list of figures, to ``H×W×3`` uint8 arrays."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise MissingDependencyError("matplotlib", extra="figures", feature="add_figure") from exc
    figures = list(figure) if isinstance(figure, list | tuple) else [figure]
    if not figures:
        raise ValueError("figure must be a matplotlib Figure or a non-empty list of them")
    images = []
    for fig in figures:
        if not hasattr(fig, "savefig"):
            raise TypeError(f"figure must be a matplotlib Figure, got {type(fig).__name__}")
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        images.append(np.asarray(canvas.buffer_rgba())[..., :3].copy())
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
    return images
