"""The time-series dashboard (the landing page): scalars, histograms and images, one card per tag."""
