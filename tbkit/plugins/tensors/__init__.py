"""The tensors plugin."""

from tbkit.plugins.spec import Plugin

PLUGINS = (Plugin("tensor", "tensor", decoder="tbkit.plugins.tensors.decode"),)
