"""The time-series dashboard (the landing page): scalars, histograms and images, one card per tag."""

from tbkit.plugins.spec import Plugin

PLUGINS = (Plugin("timeseries", None, routes="tbkit.plugins.timeseries.routes"),)
