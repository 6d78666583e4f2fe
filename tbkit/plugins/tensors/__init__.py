"""The tensors plugin."""
