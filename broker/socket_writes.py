"""A response written straight to a plaintext socket, its file ranges with sendfile.

A Fetch response's large records come as file ranges (storage.file_records.FileRecords).
On a connection without TLS, when the transport has nothing buffered, the response's
buffers are written to the socket directly (writev) and its file ranges with sendfile,
from the page cache to the socket without a copy through the process (Kafka's zero-copy
path, FileRecords.writeTo), until the socket would block; whatever is left, file ranges
read then, goes through the transport as before, after which the transport keeps the
order. With something already buffered, or on a TLS connection (which must encrypt every
byte), the ranges are read and everything goes through the transport.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

from protocol.codec import RecordsData
from storage.file_records import FileRecords

# At most this many buffers per writev (Linux's IOV_MAX is 1024).
_IOV_MAX = 512


def socket_fd_for_sendfile(transport: asyncio.BaseTransport, security_protocol: str) -> int | None:
    """The descriptor to write plaintext responses to, or None (TLS: never)."""
    if security_protocol not in ("PLAINTEXT", "SASL_PLAINTEXT") or transport.get_extra_info("ssl_object") is not None:
        return None
    sock = transport.get_extra_info("socket")
    try:
        return None if sock is None else int(sock.fileno())
    except (OSError, ValueError):
        return None


def write_response(transport: asyncio.WriteTransport, parts: Sequence[RecordsData], socket_fd: int | None) -> None:
    """Write `parts` in order; file ranges among them (cast as RecordsData by the Fetch)
    sent with sendfile where `socket_fd` allows, read otherwise."""
    if not any(isinstance(p, FileRecords) for p in parts):
        transport.writelines(parts)
        return
    if socket_fd is None or transport.get_write_buffer_size() > 0 or transport.is_closing():
        transport.writelines([_bytes(p) for p in parts])
        return
    left: list[RecordsData] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if isinstance(part, FileRecords):
            sent = part.send(socket_fd)
            if sent < len(part):
                left.append(part.read(sent))
                i += 1
                break
            part.close()
            i += 1
            continue
        j = i
        while j < len(parts) and j - i < _IOV_MAX and not isinstance(parts[j], FileRecords):
            j += 1
        chunk = parts[i:j]
        written = _writev(socket_fd, chunk)
        total = sum(len(b) for b in chunk)
        if written < total:
            left.extend(_rest(chunk, written))
            i = j
            break
        i = j
    left.extend(_bytes(p) for p in parts[i:])
    if left:
        transport.writelines(left)


def _writev(fd: int, chunk: Sequence[RecordsData]) -> int:
    """Bytes written before the socket would block (or failed: the transport then finds
    the broken connection writing the rest)."""
    total = sum(len(b) for b in chunk)
    written = 0
    while written < total:
        try:
            n = os.writev(fd, _rest(chunk, written))
        except (BlockingIOError, InterruptedError):
            break
        except OSError:
            break
        if n == 0:
            break
        written += n
    return written


def _rest(chunk: Sequence[RecordsData], skip: int) -> list[RecordsData]:
    """The buffers of `chunk` after its first `skip` bytes."""
    out: list[RecordsData] = []
    for b in chunk:
        if skip >= len(b):
            skip -= len(b)
            continue
        out.append(memoryview(b)[skip:] if skip else b)
        skip = 0
    return out


def _bytes(part: RecordsData) -> RecordsData:
    return part.read() if isinstance(part, FileRecords) else part
