"""The logic of ``tbkit inspect``, ``tbkit export`` and ``tbkit report`` (``tbkit/cli.py`` parses)."""
