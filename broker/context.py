"""What a handler knows about the request it serves."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from broker.security.sasl.session import SaslSession
    from broker.services import Services


@dataclass
class ConnectionInfo:
    """One client connection, shared by every request on it."""

    connection_id: str
    peer: str
    listener: str
    principal: str = "User:ANONYMOUS"
    authenticated: bool = True
    attributes: dict[str, object] = field(default_factory=dict)
    # The SASL exchange of a SASL listener's connection; None elsewhere.
    sasl: SaslSession | None = None


@dataclass
class RequestContext:
    services: Services
    connection: ConnectionInfo
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    # The request frame's size (the produce byte rate counts it).
    request_size: int = 0
    # Set by a handler that applied a byte-rate quota itself (Fetch).
    bandwidth_throttle_ms: int = 0
