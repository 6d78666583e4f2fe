"""Write confusion matrices with the plugin, read them back as the plugin's own frame.

pip install ./examples/custom_plugin          # registers the `tbkit.plugins` entry point
python examples/custom_plugin/demo.py [LOGDIR]
tbkit serve --logdir LOGDIR                   # the "Confusion" tab draws the latest matrices
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from tbkit_confusion import PLUGIN_NAME, log_confusion

import tbkit
from tbkit.plugins import registry


def main() -> None:
    logdir = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/custom_plugin")
    if PLUGIN_NAME not in registry.plugin_names():
        sys.exit("the plugin is not installed: pip install ./examples/custom_plugin")
    rng = np.random.default_rng(0)
    matrices = [rng.integers(0, 20, (3, 3)) + np.eye(3, dtype=int) * 10 * step for step in range(4)]
    log_confusion(str(logdir / "model"), "eval/confusion", matrices)
    log_confusion(str(logdir / "future"), "eval/confusion", matrices[:1], version=99)  # a newer payload

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the refused series warns once
        ld = tbkit.read(str(logdir))
        frame = ld.frame("confusion")  # the plugin's frame: run, tag, step, wall_time, matrix, accuracy
        problems = ld.problems()
    for row in frame.itertuples(index=False):
        print(f"{row.run} {row.tag} step {row.step}: accuracy {row.accuracy:.3f}")
    print("refused:", [reason for reason in problems["reason"]])
    assert all(np.array_equal(m, want) for m, want in zip(frame["matrix"], matrices, strict=True))


if __name__ == "__main__":
    main()
