"""A Kafka client's side of the SASL mechanisms (KIP-43): PLAIN, SCRAM-SHA-256/512 (KIP-84)
and OAUTHBEARER (KIP-255) with an unsecured token. Each mechanism is a generator of the
messages it sends in SaslAuthenticate requests, sent the broker's answers; odradek/wire.py
drives it over a connection."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from scramp import ScramClient, ScramException

# Sent the broker's answer to each message; returns when the login is complete.
Exchange = Generator[bytes, bytes, None]


class SaslAuthenticationError(ConnectionError):
    """A login the broker refused, or a broker that failed to prove it knows the SCRAM
    credential. The text names the broker and is meant to be shown as it is."""


class SaslMechanism(Protocol):
    @property
    def name(self) -> str: ...

    def exchange(self) -> Exchange: ...


@dataclass(frozen=True)
class Plain:
    username: str
    password: str
    name: str = "PLAIN"

    def exchange(self) -> Exchange:
        # RFC 4616: authorization id (empty: the username), username, password.
        yield f"\0{self.username}\0{self.password}".encode()


@dataclass(frozen=True)
class Scram:
    name: str  # SCRAM-SHA-256 or SCRAM-SHA-512
    username: str
    password: str
    # RFC 5802's client nonce; injected by tests, random otherwise (scramp's).
    nonce: str | None = None

    def exchange(self) -> Exchange:
        client = ScramClient([self.name], self.username, self.password, c_nonce=self.nonce)
        try:
            server_first = yield client.get_client_first().encode()
            client.set_server_first(server_first.decode())
            server_final = yield client.get_client_final().encode()
            client.set_server_final(server_final.decode())
        except ScramException as exc:
            raise SaslAuthenticationError(f"{self.name} login failed: {exc}") from None


@dataclass(frozen=True)
class OAuthBearer:
    """A bearer token and its SASL extensions (KIP-342), sent as RFC 7628's client response."""

    token: str
    extensions: Mapping[str, str] = field(default_factory=dict)
    name: str = "OAUTHBEARER"

    def exchange(self) -> Exchange:
        extensions = "".join(f"{k}={v}\x01" for k, v in self.extensions.items())
        answer = yield f"n,,\x01auth=Bearer {self.token}\x01{extensions}\x01".encode()
        if answer:
            # RFC 7628 3.2.2: the broker's error as a challenge; the client's \x01 ends the
            # exchange and the broker then answers with the failure.
            yield b"\x01"
            raise SaslAuthenticationError(f"OAUTHBEARER login refused: {answer.decode(errors='replace')}")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unsecured_token(options: Mapping[str, str], clock: Callable[[], float] = time.time) -> str:
    """The unsigned JWT that Kafka's OAuthBearerUnsecuredLoginCallbackHandler builds from its
    JAAS options: unsecuredLoginStringClaim_<name>, unsecuredLoginNumberClaim_<name>,
    unsecuredLoginListClaim_<name> (its first character the separator),
    unsecuredLoginPrincipalClaimName (default sub) and unsecuredLoginLifetimeSeconds (3600)."""
    now = clock()
    claims: dict[str, object] = {}
    for key, value in options.items():
        if key.startswith("unsecuredLoginStringClaim_"):
            claims[key.removeprefix("unsecuredLoginStringClaim_")] = value
        elif key.startswith("unsecuredLoginNumberClaim_"):
            number = float(value)
            claims[key.removeprefix("unsecuredLoginNumberClaim_")] = int(number) if number.is_integer() else number
        elif key.startswith("unsecuredLoginListClaim_"):
            claims[key.removeprefix("unsecuredLoginListClaim_")] = [v for v in value[1:].split(value[:1]) if v] \
                if value else []
    principal = options.get("unsecuredLoginPrincipalClaimName", "sub")
    if not isinstance(claims.get(principal), str):
        raise ValueError(f"the unsecured OAUTHBEARER login needs unsecuredLoginStringClaim_{principal}")
    lifetime = float(options.get("unsecuredLoginLifetimeSeconds", "3600"))
    claims.setdefault("iat", int(now))
    claims.setdefault("exp", int(now + lifetime))
    header = {"alg": "none"}
    return f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}."


def extensions(options: Mapping[str, str]) -> dict[str, str]:
    """The SASL extensions of Kafka's unsecured login: unsecuredLoginExtension_<name>."""
    return {k.removeprefix("unsecuredLoginExtension_"): v for k, v in options.items()
            if k.startswith("unsecuredLoginExtension_")}
