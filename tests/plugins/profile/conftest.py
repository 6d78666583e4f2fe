"""The profile tests' fixtures (see _profile_data.py) and the server tests' test clients."""

from tests.plugins.profile._profile_data import profile_logdir, torch_trace_dir
from tests.server.conftest import make_client

__all__ = ["make_client", "profile_logdir", "torch_trace_dir"]
