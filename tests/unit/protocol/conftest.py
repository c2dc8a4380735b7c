"""Hypothesis settings for the protocol tests: derandomized, so every run checks the same
examples, and without deadlines (first calls import and build strategies)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "protocol",
    derandomize=True,
    deadline=None,
    max_examples=25,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile("protocol")
