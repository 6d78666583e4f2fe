"""The profile plugin: Chrome trace files under ``<run>/plugins/profile/<session>/`` (read side)."""
