"""The images plugin."""
