"""The hparams plugin."""
