"""One connection's SASL exchange (Kafka's SaslServerAuthenticator): ApiVersions and
SaslHandshake first, then SaslAuthenticate rounds (or, after a v0 handshake, bare tokens)
until the mechanism names the user or fails; nothing else is served until then.

Re-authentication (KIP-368): a session gets a lifetime when `connections.max.reauth.ms` is
set or the credential expires (an OAUTHBEARER token's `exp`), the smaller of the two, told to
the client in SaslAuthenticate v1+. Past it the connection closes at its next request, unless
that request is a SaslHandshake starting a re-authentication, which must keep the mechanism
and the principal (Kafka's `SaslServerAuthenticator.ReauthInfo`)."""

from __future__ import annotations

import enum
from collections.abc import Callable

from broker.security.sasl.mechanisms import MechanismServer, SaslFailure, Step
from broker.security.sasl.servers import SaslServers
from protocol.apis import API_VERSIONS_KEY
from storage.clock import Clock

SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36

# Kafka's KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS: re-authentication starts at most
# once a second; a handshake sooner is answered as on any authenticated connection.
MIN_REAUTH_INTERVAL_MS = 1000

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
        self.principal: str | None = None
        # The lifetime told to the client with the last completed exchange (0: none), and when
        # the session ends on the monotonic clock (None: never).
        self.session_lifetime_ms = 0
        self.expires_at_ms: int | None = None
        self.reauthenticating = False
        self._reauth_started_ms: int | None = None
        self._bad_mechanism: str | None = None

    @property
    def clock(self) -> Clock:
        return self.servers.clock

    def expired(self) -> bool:
        return self.expires_at_ms is not None and self.clock.monotonic_ms() >= self.expires_at_ms

    def begin_reauthentication(self) -> bool:
        """On a SaslHandshake after authentication: True if it starts a re-authentication
        (Kafka's `KafkaChannel.maybeBeginServerReauthentication`), False if the handshake is
        to be answered as on any authenticated connection (no session lifetime, or the last
        re-authentication began less than a second ago)."""
        if self.state is not SaslState.COMPLETE or self.expires_at_ms is None:
            return False
        now = self.clock.monotonic_ms()
        if self._reauth_started_ms is not None and now - self._reauth_started_ms < MIN_REAUTH_INTERVAL_MS:
            return False
        self._reauth_started_ms = now
        self.reauthenticating = True
        self.state = SaslState.HANDSHAKE
        return True

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
        if self.reauthenticating and mechanism != self.mechanism:
            # Answered as accepted, as Kafka does; the next token fails the exchange.
            self._bad_mechanism = (
                f"SASL mechanism '{mechanism}' requested by client is not supported for "
                f"re-authentication of mechanism '{self.mechanism}'"
            )
            self.state = SaslState.AUTHENTICATE
            return True
        self.mechanism = mechanism
        self._server = self.servers.create(self.listener, mechanism)
        self.bare_tokens = version == 0
        self.state = SaslState.AUTHENTICATE
        return True

    def authenticate(self, token: bytes) -> Step:
        """One round; raises SaslFailure (the session failed) on a refused credential."""
        assert self._server is not None and self.mechanism is not None
        try:
            if self._bad_mechanism is not None:
                raise SaslFailure(self._bad_mechanism)
            step = self._server.step(token)
            if step.user is not None:
                principal = f"User:{step.user}"
                if self.reauthenticating and principal != self.principal:
                    raise SaslFailure(
                        f"Cannot change principals during re-authentication from {self.principal}: {principal}"
                    )
        except SaslFailure as exc:
            self.fail(str(exc))
            raise
        if step.user is not None:
            self._complete(principal, step.expires_at_ms)
        return step

    def _complete(self, principal: str, credential_expires_ms: int | None) -> None:
        """Kafka's `ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs`."""
        assert self.mechanism is not None
        max_reauth_ms = self.servers.max_reauth_ms(self.listener, self.mechanism)
        lifetime: int | None = None
        if credential_expires_ms is not None:
            lifetime = max(0, credential_expires_ms - self.clock.now_ms())
        if max_reauth_ms > 0:
            lifetime = max_reauth_ms if lifetime is None else min(lifetime, max_reauth_ms)
        self.session_lifetime_ms = lifetime or 0
        self.expires_at_ms = None if lifetime is None else self.clock.monotonic_ms() + lifetime
        self.state = SaslState.COMPLETE
        self.principal = principal
        self.reauthenticating = False
        self._on_authenticated(principal)

    def fail(self, reason: str) -> None:
        self.state = SaslState.FAILED
        self._on_failed(reason)
