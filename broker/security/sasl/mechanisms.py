"""The server side of each SASL mechanism: PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER with
unsecured JWTs. Each takes the client's tokens one at a time and answers with a challenge,
until it names the authenticated user or fails."""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import scramp

from broker.security.scram_credentials import ScramCredentialStore


class SaslFailure(Exception):
    """Authentication failed; the message is what the client is told."""


@dataclass(frozen=True)
class Step:
    challenge: bytes
    # The authenticated user name once the exchange is complete, else None.
    user: str | None = None
    # When the session ends (epoch ms), if the credential itself expires (OAUTHBEARER).
    expires_at_ms: int | None = None


class MechanismServer(Protocol):
    def step(self, token: bytes) -> Step: ...


class PlainServer:
    """RFC 4616 (Kafka's PlainSaslServer): `authzid NUL user NUL password`, checked against
    the JAAS config's `user_<name>` options."""

    def __init__(self, users: Mapping[str, str]) -> None:
        self.users = users

    def step(self, token: bytes) -> Step:
        parts = token.decode("utf-8", errors="replace").split("\x00")
        if len(parts) != 3:
            raise SaslFailure("Invalid SASL/PLAIN response: expected 3 tokens, got " + str(len(parts)))
        authzid, user, password = parts
        if not user:
            raise SaslFailure("Authentication failed: username not specified")
        if not password:
            raise SaslFailure("Authentication failed: password not specified")
        expected = self.users.get(user)
        if expected is None or not _same(expected, password):
            raise SaslFailure("Authentication failed: Invalid username or password")
        if authzid and authzid != user:
            raise SaslFailure("Authentication failed: Client requested an authorization id that is different from username")
        return Step(b"", user)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class ScramServer:
    """RFC 5802 through `scramp`, with credentials from the broker's store."""

    def __init__(self, mechanism: str, store: ScramCredentialStore) -> None:
        self.mechanism = mechanism
        self.store = store
        self.user: str | None = None
        self.server = scramp.ScramMechanism(mechanism).make_server(self._auth_info)
        self.round = 0

    def _auth_info(self, username: str) -> tuple[bytes, bytes, bytes, int]:
        # SCRAM's saslname escapes ',' and '=' (RFC 5802 section 5.1).
        user = username.replace("=2C", ",").replace("=3D", "=")
        credential = self.store.get(user, self.mechanism)
        if credential is None:
            raise SaslFailure(f"Authentication failed during authentication due to invalid credentials with SASL mechanism {self.mechanism}")
        self.user = user
        return credential.salt, credential.stored_key, credential.server_key, credential.iterations

    def step(self, token: bytes) -> Step:
        self.round += 1
        try:
            if self.round == 1:
                self.server.set_client_first(token.decode())
                return Step(self.server.get_server_first().encode())
            if self.round == 2:
                final = token.decode()
                self._accept_prefixed_nonce(final)
                self.server.set_client_final(final)
                return Step(self.server.get_server_final().encode(), self.user)
        except (scramp.ScramException, UnicodeDecodeError, SaslFailure, ValueError):
            pass
        raise SaslFailure(
            f"Authentication failed during authentication due to invalid credentials with SASL mechanism {self.mechanism}"
        )

    def _accept_prefixed_nonce(self, client_final: str) -> None:
        """Kafka's ScramSaslServer accepts a client-final nonce that ends with the server's
        combined nonce (`endsWith`, not equality), and librdkafka 2.0 (kcat) relies on it,
        sending its own nonce twice. The proof still covers the message as sent, server nonce
        included, so a replay fails as before."""
        expected = self.server.nonce  # scramp's Nonce: compared as text, replaced in kind
        for attribute in client_final.split(","):
            if attribute.startswith("r="):
                echoed = attribute[2:]
                if echoed != str(expected) and echoed.endswith(str(expected)):
                    self.server.nonce = type(expected)(echoed)
                return


_AUTH = re.compile(r"auth=Bearer ([^\x01]+)")


class OAuthBearerUnsecuredServer:
    """RFC 7628 with Kafka's default unsecured validator (OAuthBearerUnsecuredValidatorCallbackHandler):
    the token is a JWT with `"alg": "none"` and no signature; its `sub` names the user, and
    `exp` (seconds) must lie ahead. A refused token gets the RFC's JSON error as a challenge;
    the client's `%x01` reply then ends the exchange in failure."""

    def __init__(self, now_ms: Callable[[], int], principal_claim: str = "sub") -> None:
        self.now_ms = now_ms
        self.principal_claim = principal_claim
        self.error: str | None = None

    def step(self, token: bytes) -> Step:
        if self.error is not None:
            raise SaslFailure("Authentication failed: " + self.error)
        match = _AUTH.search(token.decode("utf-8", errors="replace"))
        if match is None:
            raise SaslFailure("Invalid OAUTHBEARER client first message")
        try:
            user, expires_ms = self._validate(match.group(1).strip())
        except SaslFailure as exc:
            self.error = str(exc)
            return Step(json.dumps({"status": "invalid_token"}).encode())
        return Step(b"", user, expires_ms)

    def _validate(self, jwt: str) -> tuple[str, int]:
        parts = jwt.split(".")
        if len(parts) != 3 or parts[2]:
            raise SaslFailure("an unsecured JWT has three parts and an empty signature")
        try:
            header = json.loads(_b64url(parts[0]))
            claims = json.loads(_b64url(parts[1]))
        except (ValueError, binascii.Error) as exc:
            raise SaslFailure(f"cannot read the token: {exc}") from None
        if not isinstance(header, dict) or header.get("alg") != "none":
            raise SaslFailure("an unsecured JWT must have alg none")
        if not isinstance(claims, dict):
            raise SaslFailure("the token's claims are not a JSON object")
        user = claims.get(self.principal_claim)
        if not isinstance(user, str) or not user:
            raise SaslFailure(f"the token has no {self.principal_claim} claim")
        exp = claims.get("exp")
        if not isinstance(exp, int | float) or isinstance(exp, bool):
            raise SaslFailure("the token has no numeric exp claim")
        expires_ms = int(exp * 1000)
        if expires_ms <= self.now_ms():
            raise SaslFailure("the token has expired")
        return user, expires_ms


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
