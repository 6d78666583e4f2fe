"""Event file names: ``events.out.tfevents.<10-digit seconds>.<host>.<pid>.<counter>.<token><suffix>``."""

from __future__ import annotations

import itertools
import os
import secrets
import socket
import time

_counter = itertools.count()


def event_file_name(suffix: str = "", *, now: float | None = None) -> str:
    """A fresh event file name.

    The seconds, host and pid are TensorFlow's; a zero-padded per-process counter and a random
    token make two names made in the same second differ and sort in creation order, across
    processes and hosts too (two containers can share a pid and a host name).

    Example:
        >>> event_file_name(".v2").startswith("events.out.tfevents.")
        True
    """
    seconds = int(time.time() if now is None else now)
    host = socket.gethostname().replace("/", "_")
    # Zero-padded so that name order is creation order within a second: readers read a run's
    # files in name order, and a restart file read first would lose the restarted data.
    unique = f"{next(_counter):06d}.{secrets.token_hex(4)}"
    return f"events.out.tfevents.{seconds:010d}.{host}.{os.getpid()}.{unique}{suffix}"
