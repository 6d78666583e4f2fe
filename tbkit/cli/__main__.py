"""``python -m tbkit.cli``: the ``tbkit`` command (:func:`tbkit.cli.main`), as ``python -m tbkit``."""

from __future__ import annotations

import sys

from tbkit.cli import main

if __name__ == "__main__":
    sys.exit(main())
