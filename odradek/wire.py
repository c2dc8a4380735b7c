"""The project's one blocking Kafka connection: framed requests over a plain or TLS socket,
logged in with SASL (protocol/sasl_client.py) when asked, encoded and decoded by the sans-I/O codec
of protocol/.

The admin CLI (odradek/cli/client.py), the sink's two-phase commit (pipeline/wire.py) and
the raw-wire tests (tests/kafka_wire.py) all speak through it; each adds its own routing
and error policy. It lives in `odradek` because protocol/ holds no sockets and every one of
those callers may import `odradek` (it ships in the same wheel as `pipeline`)."""

from __future__ import annotations

import socket
import ssl
import struct
import time
from collections.abc import Callable
from typing import Any

from protocol.codec import Reader, Writer
from protocol.errors import ErrorCode
from protocol.frames import frame
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.sasl_client import SaslAuthenticationError, SaslMechanism

SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36
# KIP-368: log in again this far into the session the broker grants (Kafka's clients pick
# 85 to 95%), so that no request reaches the broker after the session has expired.
REAUTH_FRACTION = 0.85


class WireError(ConnectionError):
    """The broker broke the framing: closed mid-response or answered another request. Its
    text names the broker and is meant to be shown as it is."""


def error_name(code: int) -> str:
    """Kafka's name of an error code, for messages; a code this project does not know by
    its number."""
    try:
        return ErrorCode(code).name
    except ValueError:
        return f"UNKNOWN_ERROR_CODE_{code}"


def encode_request(api_key: int, version: int, body: Message, correlation_id: int, client_id: str = "wire") -> bytes:
    """A request frame, its size prefix included."""
    api = API_SPECS[api_key]
    w = Writer()
    RequestHeader(api_key, version, correlation_id, client_id).write(w, api.request_header_version(version))
    body.write(w, version)
    return frame(w.getvalue())


def decode_response(api_key: int, version: int, frame: bytes) -> tuple[int, Message]:
    """A response frame (without its size) as (correlation id, body)."""
    api = API_SPECS[api_key]
    r = Reader(frame)
    header = ResponseHeader.read(r, api.response_header_version(version))
    return header.correlation_id, api.response.read(r, version)


def parse_host_port(server: str) -> tuple[str, int]:
    """`host:port` (an IPv6 host in brackets or not) as (host, port); ValueError if it is not."""
    host, sep, port = server.strip().rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"bad server address {server.strip()!r}: expected host:port")
    return host.strip("[]"), int(port)


class WireConnection:
    """One TCP connection to one broker, one request in flight at a time, over TLS with
    `ssl_context` and logged in with `sasl` before it is handed out (SASL_PLAINTEXT or, with
    both, SASL_SSL). Socket and TLS errors are raised as they are (OSError); a broken frame
    as WireError; a refused login as SaslAuthenticationError (a ConnectionError too)."""

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = 10.0,
        *,
        client_id: str = "wire",
        ssl_context: ssl.SSLContext | None = None,
        sasl: SaslMechanism | None = None,
        nodelay: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.address = f"{host}:{port}"
        self.client_id = client_id
        self.clock = clock
        # When to log in again (KIP-368), if the broker limits the session.
        self.reauthenticate_at: float | None = None
        self._sasl = sasl
        sock = socket.create_connection((host, port), timeout=timeout)
        if nodelay:
            # Requests are written whole; Nagle would only hold the next one back. Off by
            # default: pipelined requests then reach the broker as the raw-wire tests expect.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self.correlation_id = 0
        try:
            if ssl_context is not None:
                self.sock = ssl_context.wrap_socket(sock, server_hostname=host)
            if sasl is not None:
                self.authenticate(sasl)
        except BaseException:
            self.sock.close()
            raise

    def close(self) -> None:
        self.sock.close()

    def authenticate(self, mechanism: SaslMechanism) -> None:
        """SaslHandshake, then SaslAuthenticate requests until the mechanism is done (KIP-152:
        the SASL tokens framed as Kafka requests). Again, as `call` does when the session the
        broker granted nears its end (KIP-368)."""
        self.reauthenticate_at = None
        hello: Any = self.call(SASL_HANDSHAKE_KEY, 1, SaslHandshakeRequest(mechanism=mechanism.name))
        if hello.error_code != ErrorCode.NONE:
            offered = ", ".join(hello.mechanisms) or "none"
            raise SaslAuthenticationError(
                f"{self.address} refused SASL mechanism {mechanism.name}: {error_name(hello.error_code)} "
                f"(its mechanisms: {offered})")
        steps = mechanism.exchange()
        token = next(steps)
        while True:
            answer: Any = self.call(SASL_AUTHENTICATE_KEY, 1, SaslAuthenticateRequest(auth_bytes=token))
            if answer.error_code != ErrorCode.NONE:
                detail = f": {answer.error_message}" if answer.error_message else ""
                raise SaslAuthenticationError(
                    f"{self.address} refused the {mechanism.name} login: {error_name(answer.error_code)}{detail}")
            try:
                token = steps.send(bytes(answer.auth_bytes))
            except StopIteration:
                if answer.session_lifetime_ms > 0:
                    self.reauthenticate_at = self.clock() + answer.session_lifetime_ms / 1000 * REAUTH_FRACTION
                return

    def __enter__(self) -> WireConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, api_key: int, version: int, body: Message) -> int:
        """Writes one request; returns its correlation id."""
        self.correlation_id += 1
        self.send_raw(encode_request(api_key, version, body, self.correlation_id, self.client_id))
        return self.correlation_id

    def recv_exact(self, n: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < n:
            chunk = self.sock.recv(n - len(chunks))
            if not chunk:
                raise WireError(f"{self.address} closed the connection")
            chunks += chunk
        return bytes(chunks)

    def recv_frame(self) -> bytes:
        (size,) = struct.unpack(">i", self.recv_exact(4))
        return self.recv_exact(size)

    def recv(self, api_key: int, version: int) -> tuple[int, Message]:
        return decode_response(api_key, version, self.recv_frame())

    def call(self, api_key: int, version: int, body: Message) -> Any:
        """One request and its response (after logging in again if the session is ending)."""
        if self._sasl is not None and self.reauthenticate_at is not None and self.clock() >= self.reauthenticate_at:
            self.authenticate(self._sasl)
        cid = self.send(api_key, version, body)
        got, response = self.recv(api_key, version)
        if got != cid:
            raise WireError(f"{self.address} answered request {got} to request {cid}")
        return response

    def is_closed_by_peer(self, timeout: float = 5.0) -> bool:
        """Whether the broker closes the connection within `timeout` seconds (instead of
        sending a byte)."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
