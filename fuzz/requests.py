"""Fuzz target: every request decoder the broker serves (the generated codecs).

The input is one request frame without its size prefix, read as broker/connection.py's
`Connection._dispatch` reads it: the api key and version pick the route, then the request
header and the body are decoded. Invariants: only the decode-error family escapes; a
request that decodes encodes again, and that encoding decodes and encodes to the same
bytes (so every value the decoder accepts is one the codecs can carry). Bytes, not
objects, are compared: unknown tagged fields are kept in the order they arrived, as
Kafka's generated readers keep them, and written sorted.
"""

from __future__ import annotations

import struct
import uuid

from fuzz.harness import instrumented, main

with instrumented("protocol"):
    from protocol.codec import DecodeError, Reader, Writer
    from protocol.message import Message
    from protocol.messages import API_SPECS
    from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
    from protocol.messages.request_header import RequestHeader
    from protocol.record_batch import Record, build_batch

from broker.handlers import build_router

_PREFIX = struct.Struct(">hhi")  # api key, api version, correlation id
ROUTES = {key: (route.api, route.min_version, route.max_version) for key, route in build_router().routes.items()}


def check(data: bytes) -> None:
    if len(data) < _PREFIX.size:
        return
    api_key, version, _ = _PREFIX.unpack_from(data)
    served = ROUTES.get(api_key)
    if served is None or not served[1] <= version <= served[2]:
        return  # refused before any decoding
    api = served[0]
    try:
        reader = Reader(data)
        RequestHeader.read(reader, api.request_header_version(version))
        request = api.request.read(reader, version)
    except DecodeError:
        return
    encoded = request.encode(version)
    again = api.request.decode(encoded, version).encode(version)
    assert again == encoded, f"{api.name} v{version} does not survive encode and decode"


def _frame(api_key: int, version: int, body: Message) -> bytes:
    api = API_SPECS[api_key]
    w = Writer()
    RequestHeader(api_key, version, 7, "fuzz").write(w, api.request_header_version(version))
    body.write(w, version)
    return w.getvalue()


def seeds() -> list[bytes]:
    """Every served API at every served version, default fields, plus a Produce carrying
    a record batch (the one request whose body holds another encoding)."""
    out = [_frame(key, v, api.request()) for key, (api, lo, hi) in sorted(ROUTES.items()) for v in range(lo, hi + 1)]
    batch = build_batch([Record(b"k", b"v", [("h", b"1")], 1000)])
    lo, hi = ROUTES[ProduceRequest.API_KEY][1:]
    for v in range(lo, hi + 1):
        # v13+ names topics by id (KIP-516), earlier versions by name.
        topic = TopicProduceData(topic_id=uuid.UUID(int=1)) if v >= 13 else TopicProduceData(name="t")
        topic.partition_data = [PartitionProduceData(index=0, records=batch)]
        out.append(_frame(ProduceRequest.API_KEY, v, ProduceRequest(acks=-1, topic_data=[topic])))
    return out


if __name__ == "__main__":
    main(check, seeds)
