"""Framework integrations: PyTorch hooks (``torch``), a Lightning logger (``lightning``) and
Keras callbacks (``keras``). Each module imports its framework when it is imported itself;
``import tbkit`` imports none of them.
"""
