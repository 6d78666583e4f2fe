"""Reuse the server tests' fixtures (fixture logdirs, test clients)."""

from tests.server.conftest import client, make_client, tbkit_logdir, torch_logdir

__all__ = ["client", "make_client", "tbkit_logdir", "torch_logdir"]
