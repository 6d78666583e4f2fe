"""The scalars plugin."""
