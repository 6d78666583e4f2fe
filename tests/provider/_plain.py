"""A test double: a DataProvider that is not a SeriesProvider (a helper module, not a test).

It forwards only the interface's abstract methods (and where its data come from) to another
provider, so everything else runs through :class:`~tbkit.provider.DataProvider`'s defaults.
"""

from __future__ import annotations

from typing import Any

from tbkit.provider import DataProvider


class Plain(DataProvider):
    """A DataProvider that is not a SeriesProvider: only the abstract methods, delegated."""

    def __init__(self, inner: DataProvider) -> None:
        self.inner = inner

    def data_location(self) -> str:
        return self.inner.data_location()

    def list_plugins(self) -> list[str]:
        return self.inner.list_plugins()

    def list_runs(self) -> list[Any]:
        return self.inner.list_runs()

    def list_scalars(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.list_scalars(plugin_name, **kw)

    def read_scalars(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.read_scalars(plugin_name, **kw)

    def read_last_scalars(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.read_last_scalars(plugin_name, **kw)

    def list_tensors(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.list_tensors(plugin_name, **kw)

    def read_tensors(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.read_tensors(plugin_name, **kw)

    def list_blob_sequences(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.list_blob_sequences(plugin_name, **kw)

    def read_blob_sequences(self, plugin_name: str, **kw: Any) -> Any:
        return self.inner.read_blob_sequences(plugin_name, **kw)

    def read_blob(self, blob_key: str) -> bytes:
        return self.inner.read_blob(blob_key)
