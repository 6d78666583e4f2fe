"""Plugins: one folder per data kind, each owning its metadata, write, read and serve sides."""
