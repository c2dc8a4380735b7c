"""`python -m broker.healthcheck [host:port]`: one ApiVersions round trip, for a container's
HEALTHCHECK. Exit 0 when the broker answers ApiVersions v3 without error, 1 otherwise.

A port that accepts connections is not enough: the broker binds its listeners only after
storage has opened, but a wedged event loop would still accept them. Without an address it
asks the first of `ODRADEK_LISTENERS` (or the default listener) on the loopback address.
"""

from __future__ import annotations

import os
import socket
import struct
import sys

from broker.config import SETTINGS, Listener
from protocol.codec import Reader, Writer
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader

API_VERSIONS_KEY = 18
VERSION = 3
TIMEOUT_SECONDS = 5.0


def default_address() -> tuple[str, int]:
    listeners = os.environ.get("ODRADEK_LISTENERS") or str(SETTINGS["listeners"].default)
    first = Listener.parse(listeners.split(",")[0])
    host = "127.0.0.1" if first.host in ("0.0.0.0", "", "::") else first.host
    return host, first.port


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("connection closed by the broker")
        data += chunk
    return data


def api_versions(host: str, port: int, timeout: float = TIMEOUT_SECONDS) -> ApiVersionsResponse:
    w = Writer()
    RequestHeader(API_VERSIONS_KEY, VERSION, 1, "odradek-healthcheck").write(w, 2)
    ApiVersionsRequest(client_software_name="odradek-healthcheck", client_software_version="1").write(w, VERSION)
    payload = w.getvalue()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        (size,) = struct.unpack(">i", _recv_exact(sock, 4))
        reader = Reader(_recv_exact(sock, size))
    # ApiVersions responses keep header v0 at every version (KIP-511).
    header = ResponseHeader.read(reader, 0)
    if header.correlation_id != 1:
        raise ValueError(f"correlation id {header.correlation_id} instead of 1")
    return ApiVersionsResponse.read(reader, VERSION)


def main(argv: list[str]) -> int:
    if argv:
        host, _, port_text = argv[0].rpartition(":")
        address = (host or "127.0.0.1", int(port_text))
    else:
        address = default_address()
    try:
        response = api_versions(*address)
    except (OSError, ValueError) as exc:
        print(f"unhealthy: {address[0]}:{address[1]}: {exc}", file=sys.stderr)
        return 1
    if response.error_code != 0:
        print(f"unhealthy: ApiVersions error code {response.error_code}", file=sys.stderr)
        return 1
    print(f"healthy: {len(response.api_keys)} APIs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
