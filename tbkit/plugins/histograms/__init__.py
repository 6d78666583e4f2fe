"""The histograms plugin."""
