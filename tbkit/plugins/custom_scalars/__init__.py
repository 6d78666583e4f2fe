"""The custom_scalars plugin."""
