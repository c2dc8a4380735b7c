"""Prometheus metrics of the broker process.

- `requests`: counters and histograms the connections update per request (the hot path).
- `collector`: gauges read from storage and the coordinators at scrape time.
- `endpoint`: the HTTP endpoint serving `/metrics`, `/healthz` and `/readyz`.
"""

from broker.metrics.requests import BrokerMetrics

__all__ = ["BrokerMetrics"]
