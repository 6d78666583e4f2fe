"""The pr_curves plugin."""
