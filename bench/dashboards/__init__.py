"""Dashboard benchmarks run by ``bench/serve.py --dashboards NAME,...``.

Each module here (named after its dashboard) provides ``measure(browser, workdir) -> dict``:
it writes its own logdir under ``workdir``, starts the tbkit server on 127.0.0.1 (in-process,
``tbkit.server.serve.start``), opens pages in ``browser`` (a Playwright Chromium) and returns
``{figure name: seconds}``; ``TARGETS`` maps the same names to the issue's bound in seconds.
"""
