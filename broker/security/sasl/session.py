"""One connection's SASL exchange (Kafka's SaslServerAuthenticator): ApiVersions and
SaslHandshake first, then SaslAuthenticate rounds (or, after a v0 handshake, bare tokens)
until the mechanism names the user or fails; nothing else is served until then."""

from __future__ import annotations

import enum
from collections.abc import Callable

from broker.security.sasl.mechanisms import MechanismServer, SaslFailure, Step
from broker.security.sasl.servers import SaslServers
from protocol.apis import API_VERSIONS_KEY

SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36

# Kafka's SaslServerAuthenticator.MAX_RECEIVE_SIZE: the largest frame before authentication.
MAX_RECEIVE_SIZE = 524288


class SaslState(enum.Enum):
    HANDSHAKE = "handshake"
    AUTHENTICATE = "authenticate"
    COMPLETE = "complete"
    FAILED = "failed"


_ALLOWED = {
    SaslState.HANDSHAKE: frozenset({API_VERSIONS_KEY, SASL_HANDSHAKE_KEY}),
    SaslState.AUTHENTICATE: frozenset({SASL_AUTHENTICATE_KEY}),
}


class SaslSession:
    def __init__(
        self,
        servers: SaslServers,
        listener: str,
        on_authenticated: Callable[[str], None],
        on_failed: Callable[[str], None],
    ) -> None:
        self.servers = servers
        self.listener = listener
        self.state = SaslState.HANDSHAKE
        self.mechanism: str | None = None
        # After a v0 handshake the tokens come as bare frames, without a request header.
        self.bare_tokens = False
        self._server: MechanismServer | None = None
        self._on_authenticated = on_authenticated
        self._on_failed = on_failed

    @property
    def mechanisms(self) -> list[str]:
        return self.servers.mechanisms(self.listener)

    def allows(self, api_key: int) -> bool:
        """Whether a request of this API may come now, before authentication is complete."""
        return api_key in _ALLOWED.get(self.state, frozenset())

    def handshake(self, mechanism: str, version: int) -> bool:
        """Chooses the mechanism; False (and the connection closes) if it is not enabled."""
        if mechanism not in self.mechanisms:
            self.fail(f"unsupported SASL mechanism {mechanism}")
            return False
        self.mechanism = mechanism
        self._server = self.servers.create(self.listener, mechanism)
        self.bare_tokens = version == 0
        self.state = SaslState.AUTHENTICATE
        return True

    def authenticate(self, token: bytes) -> Step:
        """One round; raises SaslFailure (the session failed) on a refused credential."""
        assert self._server is not None and self.mechanism is not None
        try:
            step = self._server.step(token)
        except SaslFailure as exc:
            self.fail(str(exc))
            raise
        if step.user is not None:
            self.state = SaslState.COMPLETE
            self._on_authenticated(f"User:{step.user}")
        return step

    def fail(self, reason: str) -> None:
        self.state = SaslState.FAILED
        self._on_failed(reason)
