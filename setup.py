"""Build of tbkit's optional compiled core (everything else is in pyproject.toml).

``tbkit.record._native`` is plain C against the CPython API and the buffer protocol. It is
optional: where it cannot be compiled the install goes on without it and tbkit runs on its
pure-Python path (docs/native.md).
"""

import sys

from setuptools import Extension, setup

COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3"]

setup(
    ext_modules=[
        Extension(
            "tbkit.record._native",
            sources=["tbkit/record/_native.c"],
            depends=["tbkit/record/_histograms.c"],  # included by _native.c: a change rebuilds it
            extra_compile_args=COMPILE_ARGS,
            optional=True,
        )
    ]
)
