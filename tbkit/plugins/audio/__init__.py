"""The audio plugin."""
