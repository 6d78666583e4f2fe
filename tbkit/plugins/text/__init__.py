"""The text plugin."""
