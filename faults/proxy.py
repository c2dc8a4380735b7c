"""A TCP proxy on loopback between the clients and the broker, the network nemesis.

It runs its own event loop on a thread; the campaign flips its faults:
- `drop()`: cut every connection and refuse new ones until `heal()`;
- `delay(seconds)`: hold each chunk a random time up to `seconds`, drawn per connection,
  so requests on different connections overtake each other;
- `hold_one(api_keys, seconds)`: the next request of one of those APIs (parsed from its
  header with `protocol/`) is kept back, its connection cut so the client moves on, and
  the request delivered on a fresh connection `seconds` later (KAFKA-17754: a Produce,
  AddPartitionsToTxn or EndTxn of a transaction the client has finished with).

A `raw` proxy (between the broker and PostgreSQL) pipes bytes without reading frames: it
drops and delays, never holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading

from protocol.codec import DecodeError, Reader
from protocol.frames import FrameReader, frame
from protocol.messages.request_header import RequestHeader

PRODUCE, ADD_PARTITIONS_TO_TXN, END_TXN = 0, 24, 26


class Proxy:
    def __init__(self, listen_port: int, broker_port: int, seed: int, *, raw: bool = False) -> None:
        self.raw = raw
        self.listen_port = listen_port
        self.broker_port = broker_port
        self.rng = random.Random(seed)
        self.dropping = False
        self.max_delay = 0.0
        self.hold_keys: frozenset[int] = frozenset()
        self.hold_for = 0.0
        self.held = 0  # requests held back and delivered late
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="faults-proxy", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", self.listen_port)
        )
        self._ready.set()
        with contextlib.suppress(RuntimeError):
            self._loop.run_forever()
        server.close()

    def stop(self) -> None:
        if self._thread.ident is None:  # never started: the run failed before (its error is the one to see)
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # faults, called from the campaign's thread
    def drop(self) -> None:
        self.dropping = True
        self._loop.call_soon_threadsafe(self._cut_all)

    def delay(self, seconds: float) -> None:
        self.max_delay = seconds

    def hold_one(self, api_keys: frozenset[int], seconds: float) -> None:
        self.hold_for = seconds
        self.hold_keys = api_keys

    def heal(self) -> None:
        self.dropping = False
        self.max_delay = 0.0
        self.hold_keys = frozenset()

    def _cut_all(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        if self.dropping:
            client_w.transport.abort()
            return
        try:
            broker_r, broker_w = await asyncio.open_connection("127.0.0.1", self.broker_port)
        except OSError:
            client_w.transport.abort()
            return
        self._writers.update((client_w, broker_w))
        delay = self.rng.uniform(0, self.max_delay)
        up = asyncio.ensure_future(
            self._pipe(client_r, broker_w, delay) if self.raw else self._requests(client_r, broker_w, client_w, delay)
        )
        down = asyncio.ensure_future(self._pipe(broker_r, client_w, delay))
        await asyncio.wait([up, down], return_when=asyncio.FIRST_COMPLETED)
        for task in (up, down):
            task.cancel()
        for writer in (client_w, broker_w):
            self._writers.discard(writer)
            writer.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
        while data := await reader.read(65536):
            if delay:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()

    async def _requests(
        self,
        reader: asyncio.StreamReader,
        broker: asyncio.StreamWriter,
        client: asyncio.StreamWriter,
        delay: float,
    ) -> None:
        frames = FrameReader()
        while data := await reader.read(65536):
            if delay:
                await asyncio.sleep(delay)
            for request in frames.feed(data):
                payload = bytes(request)
                if self.hold_keys and _api_key(payload) in self.hold_keys:
                    self.hold_keys = frozenset()
                    self._later(payload)
                    return  # the connection is cut: the client retries or moves on
                broker.write(frame(payload))
            await broker.drain()

    def _later(self, payload: bytes) -> None:
        def deliver() -> None:
            self._loop.create_task(self._deliver_late(payload))

        self._loop.call_later(self.hold_for, deliver)

    async def _deliver_late(self, payload: bytes) -> None:
        with contextlib.suppress(OSError, asyncio.TimeoutError):
            reader, writer = await asyncio.open_connection("127.0.0.1", self.broker_port)
            writer.write(frame(payload))
            await writer.drain()
            await asyncio.wait_for(reader.read(65536), 10)  # the answer goes nowhere
            writer.close()
        self.held += 1


def _api_key(payload: bytes) -> int | None:
    try:
        # Header v1's leading fields (api key, version, correlation id, client id) are the
        # same in every header version.
        return RequestHeader.read(Reader(payload), 1).request_api_key
    except DecodeError:
        return None
