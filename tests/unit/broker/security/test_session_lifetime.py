"""The SASL session lifetime (KIP-368) on the injected clock: `connections.max.reauth.ms`
by listener and mechanism, an OAUTHBEARER token's expiry, and the smaller of the two."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from broker.config import Config
from broker.security.sasl.servers import SaslServers
from broker.security.sasl.session import SaslSession
from broker.security.scram_credentials import FileScramCredentialStore
from storage.clock import ManualClock

JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="pw";'


def _servers(tmp_path: Path, clock: ManualClock, **extra: str) -> SaslServers:
    config = Config({
        "listeners": "PLAINTEXT://127.0.0.1:9092,SECURE://127.0.0.1:9093",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SECURE:SASL_PLAINTEXT",
        "listener.name.secure.sasl.enabled.mechanisms": "PLAIN,OAUTHBEARER",
        "sasl.jaas.config": JAAS,
        **extra,
    })
    return SaslServers(config, FileScramCredentialStore(tmp_path / "scram.json"), clock)


def _jwt(sub: str, exp_s: float) -> bytes:
    def part(doc: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'sub': sub, 'exp': exp_s})}.".encode()


def _session(servers: SaslServers, principals: list[str], failures: list[str]) -> SaslSession:
    return SaslSession(servers, "SECURE", principals.append, failures.append)


def test_no_lifetime_without_max_reauth_or_expiring_credential(tmp_path: Path) -> None:
    clock = ManualClock()
    session = _session(_servers(tmp_path, clock), principals := [], [])
    assert session.handshake("PLAIN", 1)
    session.authenticate(b"\x00alice\x00pw")
    assert (principals, session.session_lifetime_ms, session.expires_at_ms) == (["User:alice"], 0, None)
    assert not session.begin_reauthentication()


def test_max_reauth_by_listener_and_mechanism(tmp_path: Path) -> None:
    clock = ManualClock()
    servers = _servers(
        tmp_path,
        clock,
        **{
            "connections.max.reauth.ms": "60000",
            "listener.name.secure.connections.max.reauth.ms": "30000",
            "listener.name.secure.oauthbearer.connections.max.reauth.ms": "10000",
        },
    )
    assert servers.max_reauth_ms("SECURE", "PLAIN") == 30000
    assert servers.max_reauth_ms("SECURE", "OAUTHBEARER") == 10000
    session = _session(servers, [], [])
    session.handshake("PLAIN", 1)
    session.authenticate(b"\x00alice\x00pw")
    assert session.session_lifetime_ms == 30000
    clock.advance(29_999)
    assert not session.expired()
    clock.advance(1)
    assert session.expired()


def test_token_expiry_and_max_reauth_the_smaller_wins(tmp_path: Path) -> None:
    clock = ManualClock()
    servers = _servers(tmp_path, clock, **{"connections.max.reauth.ms": "10000"})
    token = b"n,,\x01auth=Bearer " + _jwt("bob", (clock.now_ms() + 4000) / 1000) + b"\x01\x01"
    session = _session(servers, [], [])
    session.handshake("OAUTHBEARER", 1)
    session.authenticate(token)
    assert session.session_lifetime_ms == 4000
    # Without connections.max.reauth.ms the token's own lifetime still bounds the session.
    unbounded = _session(_servers(tmp_path, clock), [], [])
    unbounded.handshake("OAUTHBEARER", 1)
    unbounded.authenticate(b"n,,\x01auth=Bearer " + _jwt("bob", (clock.now_ms() + 50_000) / 1000) + b"\x01\x01")
    assert unbounded.session_lifetime_ms == 50_000
    long_token = b"n,,\x01auth=Bearer " + _jwt("bob", (clock.now_ms() + 50_000) / 1000) + b"\x01\x01"
    clock.advance(2000)
    assert session.begin_reauthentication()
    session.handshake("OAUTHBEARER", 1)
    session.authenticate(long_token)
    assert session.session_lifetime_ms == 10000
    assert session.expires_at_ms == clock.monotonic_ms() + 10000
