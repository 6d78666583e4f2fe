"""The mesh plugin."""
