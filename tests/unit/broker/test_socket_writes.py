"""broker/socket_writes.py: a response with file ranges reaches the peer byte for byte, in
order, whether the socket takes it at once (sendfile) or not (the rest through the
transport), and on a connection without sendfile (TLS) by reading the ranges."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from broker.socket_writes import write_response
from storage.file_records import FileRecords

DATA = os.urandom(1 << 20)


async def _received(peer: socket.socket, count: int) -> bytes:
    """Read `count` bytes from the blocking `peer` off the loop (the transport keeps writing)."""

    def read() -> bytes:
        got = bytearray()
        while len(got) < count:
            chunk = peer.recv(count - len(got))
            assert chunk, f"peer closed after {len(got)} of {count} bytes"
            got += chunk
        return bytes(got)

    return await asyncio.wait_for(asyncio.to_thread(read), 30)


@pytest.mark.parametrize("sendfile", [True, False], ids=["plaintext", "tls"])
async def test_file_ranges_arrive_in_order(tmp_path: Path, sendfile: bool) -> None:
    path = tmp_path / "segment.log"
    path.write_bytes(DATA)
    ours, peer = socket.socketpair()
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    fd = os.open(path, os.O_RDONLY)
    try:
        # The second range is larger than a socket buffer: sendfile stops short and the
        # rest goes through the transport after it.
        ranges = [FileRecords(os.dup(fd), 100, 70_000, 0), FileRecords(os.dup(fd), 200_000, 800_000, 0)]
        parts = [b"header", ranges[0], bytearray(b"between"), ranges[1], memoryview(b"tail")]
        expected = b"header" + DATA[100:70_100] + b"between" + DATA[200_000:1_000_000] + b"tail"
        socket_fd = ours.fileno() if sendfile else None
        write_response(transport, parts, socket_fd)  # type: ignore[arg-type]
        assert await _received(peer, len(expected)) == expected
        # Every range's descriptor is closed once its bytes went out.
        for r in ranges:
            with pytest.raises(ValueError):
                r.fileno()
    finally:
        os.close(fd)
        transport.close()
        peer.close()


async def test_after_buffered_bytes_the_ranges_follow_them(tmp_path: Path) -> None:
    """With bytes already waiting in the transport, a range is not sent past them."""
    path = tmp_path / "segment.log"
    path.write_bytes(DATA)
    ours, peer = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    fd = os.open(path, os.O_RDONLY)
    try:
        first = DATA[:600_000]
        transport.write(first)  # more than the socket takes: the transport buffers the rest
        assert transport.get_write_buffer_size() > 0
        write_response(transport, [b"next", FileRecords(os.dup(fd), 0, 100_000, 0)], ours.fileno())  # type: ignore[list-item]
        expected = first + b"next" + DATA[:100_000]
        assert await _received(peer, len(expected)) == expected
    finally:
        os.close(fd)
        transport.close()
        peer.close()
