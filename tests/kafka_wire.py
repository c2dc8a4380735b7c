"""A tiny raw-socket Kafka client for tests that need to send exact bytes."""

from __future__ import annotations

import socket
import struct

from protocol.codec import Reader, Writer
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader


def encode_request(api_key: int, version: int, body: Message, correlation_id: int, client_id: str = "wire") -> bytes:
    api = API_SPECS[api_key]
    w = Writer()
    RequestHeader(api_key, version, correlation_id, client_id).write(w, api.request_header_version(version))
    body.write(w, version)
    payload = w.getvalue()
    return struct.pack(">i", len(payload)) + payload


class WireClient:
    def __init__(self, bootstrap: str, timeout: float = 10.0) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.correlation_id = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, api_key: int, version: int, body: Message) -> int:
        self.correlation_id += 1
        self.send_raw(encode_request(api_key, version, body, self.correlation_id))
        return self.correlation_id

    def recv_exact(self, n: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < n:
            chunk = self.sock.recv(n - len(chunks))
            if not chunk:
                raise ConnectionError("closed by the broker")
            chunks += chunk
        return bytes(chunks)

    def recv_frame(self) -> bytes:
        (size,) = struct.unpack(">i", self.recv_exact(4))
        return self.recv_exact(size)

    def recv(self, api_key: int, version: int) -> tuple[int, Message]:
        api = API_SPECS[api_key]
        frame = self.recv_frame()
        r = Reader(frame)
        header = ResponseHeader.read(r, api.response_header_version(version))
        return header.correlation_id, api.response.read(r, version)

    def call(self, api_key: int, version: int, body: Message) -> Message:
        cid = self.send(api_key, version, body)
        got, response = self.recv(api_key, version)
        assert got == cid
        return response

    def is_closed_by_peer(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
