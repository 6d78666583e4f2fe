"""Keras 3 integration: the ``TensorBoard`` and ``HParams`` callbacks, on every Keras backend.

A thin public name for :mod:`tbkit.integrations.keras`; ``import tbkit`` does not import it
(nor Keras).

Example:
    >>> import tbkit.keras  # doctest: +SKIP
    >>> model.fit(x, y, callbacks=[tbkit.keras.TensorBoard("logs", histogram_freq=1)])  # doctest: +SKIP
"""

from tbkit.integrations.keras import HParams, TensorBoard

__all__ = ["HParams", "TensorBoard"]
