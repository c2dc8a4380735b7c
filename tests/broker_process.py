"""The integration tests' broker process: the same one users get from `odradek.testing`."""

from __future__ import annotations

from odradek.testing import OdradekBroker as BrokerProcess
from odradek.testing import free_port

__all__ = ["BrokerProcess", "free_port"]
