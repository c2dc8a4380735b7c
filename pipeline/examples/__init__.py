"""Runnable examples of the connector; `make pipeline` runs `python -m pipeline.examples.demo`."""
