"""One client connection: frames in, handlers run, responses out strictly in request order.

Requests on a connection may be pipelined. Each is handled as soon as it arrives (handlers
do their order-sensitive work, such as appending to a log, before their first suspension,
and tasks start in creation order), while responses wait for every earlier one. At most
`connection.max.in.flight.requests` are handled at once: frames read beyond that wait their
turn, and reading pauses until a response goes out; so do frames past DISPATCH_BYTES_PER_TURN
within one turn of the event loop, until the next turn. Reading also pauses while the peer does
not read our responses (the transport's pause_writing), while the broker-wide
`queued.max.requests` is reached (`broker/request_queue.py`), and while a client quota
throttles the connection (KIP-219: the response goes out at once with its throttle time,
and nothing more is read or handled until that time has passed; `broker/quotas/`).
"""

from __future__ import annotations

import asyncio
import itertools
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from broker.context import ConnectionInfo, RequestContext
from broker.logging import get_logger
from broker.quotas.throttling import limited, response_throttle_ms, times_requests
from broker.quotas.timing import BusyTime
from broker.security.listeners import uses_sasl
from broker.security.sasl.mechanisms import SaslFailure
from broker.security.sasl.session import MAX_RECEIVE_SIZE, SASL_HANDSHAKE_KEY, SaslSession, SaslState
from broker.security.tls import peer_principal_name
from broker.socket_writes import socket_fd_for_sendfile, write_response
from protocol.apis import API_VERSIONS_KEY
from protocol.codec import DecodeError, Reader, RecordsData, Writer
from protocol.frames import SCRATCH_BYTES, Frame, FrameReader
from protocol.message import Message
from protocol.messages.api_versions_response import ApiVersion, ApiVersionsResponse
from protocol.messages.request_header import RequestHeader
from protocol.messages.response_header import ResponseHeader
from storage.clock import Timer

if TYPE_CHECKING:
    from broker.connection_limits import Admission
    from broker.services import Services

log = get_logger("odradek.connection")

_HEADER_PREFIX = struct.Struct(">hhi")
# Request bytes one connection hands to handlers per turn of the event loop; the frame that
# crosses it still goes, the next ones wait for the next turn. A Produce handler appends
# before its first suspension (validation, CRC, pwrite: a millisecond or more for a
# megabyte), so five megabyte frames read at once ran back to back in one turn, and a small
# request of another connection, or the end of an fsync round, waited behind all of them.
DISPATCH_BYTES_PER_TURN = 256 * 1024
_connection_ids = itertools.count(1)

UNSUPPORTED_VERSION = 35


def refuse_connection(
    services: Services, transport: asyncio.BaseTransport, listener: str, peer: str, reason: str
) -> None:
    """A connection past a limit: closed at once, with a log line."""
    services.metrics.failed.labels("connection limit").inc()
    log.warning("rejected connection", peer=peer, listener=listener, reason=reason)
    transport.close()


class _Slot:
    """A response position in the connection's queue."""

    __slots__ = ("done", "payload")

    def __init__(self) -> None:
        self.done = False
        # The response's buffers (header and body, records not copied), or None: no response.
        self.payload: list[RecordsData] | None = None


class _ReadScratch(threading.local):
    buffer: bytearray | None = None


_READ_SCRATCH = _ReadScratch()


def _read_scratch() -> bytearray:
    """The buffer every connection of this thread's event loop reads into (one read is taken
    whole before the next: protocol.frames.FrameReader): 256 KiB per loop, not per connection."""
    buffer = _READ_SCRATCH.buffer
    if buffer is None:
        buffer = _READ_SCRATCH.buffer = bytearray(SCRATCH_BYTES)
    return buffer


class KafkaConnection(asyncio.BufferedProtocol):
    def __init__(self, services: Services, listener: str, admission: Admission | None = None) -> None:
        self.services = services
        self.listener = listener
        self.frames = FrameReader(services.config.max_frame_bytes, _read_scratch())
        self.max_in_flight = max(1, services.config.get_int("connection.max.in.flight.requests"))
        self.queue = services.request_queue
        self.transport: asyncio.Transport | None = None
        self.info: ConnectionInfo | None = None
        self.pending: deque[_Slot] = deque()
        # Frames read while the in-flight cap or this turn's DISPATCH_BYTES_PER_TURN was
        # reached: one read's worth at most, since reading pauses at either.
        self.backlog: deque[Frame] = deque()
        self.tasks: set[asyncio.Task[None]] = set()
        self.reading_paused = False
        self.writing_paused = False
        self.closing = False
        self.sendfile_fd: int | None = None
        self.draining = False
        self.flush_scheduled = False
        # Bytes of requests dispatched since the budget was last crossed (DISPATCH_BYTES_PER_TURN).
        self.turn_bytes = 0
        # Set when SASL authentication failed: the connection closes once its answer is out.
        self.close_after_flush: str | None = None
        self.limits = services.connection_limits
        # Counted in broker/connection_limits.py, by this connection or, before its
        # handshake, by a TLS listener's gate (broker/tls_gate.py); None if refused.
        self.admission = admission
        self.last_active_ms = 0
        # Set while a quota throttles the connection; it fires when reading may resume.
        self.throttle_timer: Timer | None = None
        self.throttled_until_ms = 0
        # Set while the connection creation rate holds the connection back.
        self.held: Timer | None = None

    # -- asyncio.Protocol -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        peer_text = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.info = ConnectionInfo(f"c{next(_connection_ids)}", peer_text, self.listener)
        ip = str(peer[0]) if isinstance(peer, tuple) else peer_text
        if self.admission is None:
            admission = self.limits.enter(self.listener, ip)
            if isinstance(admission, str):
                self.closing = True
                refuse_connection(self.services, self.transport, self.listener, peer_text, admission)
                return
            self.admission = admission
        self.last_active_ms = self.limits.clock.monotonic_ms()
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is not None:
            # Kafka's DefaultKafkaPrincipalBuilder: the client certificate's subject, if any.
            subject = peer_principal_name(ssl_object)
            if subject is not None:
                self.info.principal = f"User:{subject}"
        # Plaintext: a Fetch's file ranges go out with sendfile (broker/socket_writes.py).
        self.sendfile_fd = socket_fd_for_sendfile(transport, self.services.config.security_protocols[self.listener])
        if uses_sasl(self.services.config.security_protocols[self.listener]):
            self.info.authenticated = False
            self.info.sasl = SaslSession(
                self.services.sasl_servers, self.listener, self._authenticated, self._authentication_failed
            )
            self.frames.max_frame_bytes = min(MAX_RECEIVE_SIZE, self.frames.max_frame_bytes)
        self.services.connections.add(self)
        self.queue.subscribe(self._update_reading)
        self.services.metrics.connections_opened.labels(self.listener).inc()
        log.info(
            "connection opened",
            conn=self.info.connection_id,
            peer=peer_text,
            listener=self.listener,
            principal=self.info.principal,
        )
        delay_ms = self.limits.creation_rate.delay_ms(self.listener)
        ip_throttle_ms = self.limits.creation_rate.ip_throttle_ms(ip, delay_ms)
        if ip_throttle_ms > 0:
            # Over its address's connection_creation_rate: closed after the throttle time.
            self._hold(delay_ms + ip_throttle_ms,
                       lambda: self.close("connection creation rate", throttle_ms=ip_throttle_ms))
        elif delay_ms > 0:
            # Over max.connection.creation.rate: served after its throttle time.
            self._hold(delay_ms, self._release)
            log.info("connection creation throttled", conn=self.info.connection_id, listener=self.listener,
                     delay_ms=delay_ms)

    def _hold(self, delay_ms: int, then: Callable[[], None]) -> None:
        """Nothing is read from the connection for `delay_ms` (KIP-612), then `then` runs."""
        self.held = self.limits.clock.call_later(delay_ms, then)
        assert self.transport is not None
        self.transport.pause_reading()
        self.reading_paused = True
        self.services.metrics.connections_throttled.labels(self.listener).inc()

    def _release(self) -> None:
        self.held = None
        if not self.closing:
            self._dispatch_backlog()
            self._update_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if self.admission is None:
            return
        self.admission.release()
        self.admission = None
        if self.held is not None:
            self.held.cancel()
            self.held = None
        # Frames never dispatched leave the queue here; dispatched ones when their task ends.
        self.queue.done(len(self.backlog))
        self.backlog.clear()
        self.queue.unsubscribe(self._update_reading)
        self.services.connections.discard(self)
        if self.throttle_timer is not None:
            self.throttle_timer.cancel()
            self.throttle_timer = None
        for task in self.tasks:
            task.cancel()
        if self.info is not None:
            log.info("connection closed", conn=self.info.connection_id, peer=self.info.peer, error=str(exc) if exc else None)

    def pause_writing(self) -> None:
        self.writing_paused = True
        self._update_reading()

    def resume_writing(self) -> None:
        self.writing_paused = False
        self._update_reading()

    def get_buffer(self, sizehint: int) -> memoryview:
        # Read straight into the frame being gathered, or into the reader's scratch buffer:
        # a large Produce's bytes are copied once, from the socket to their frame.
        return self.frames.get_buffer()

    def buffer_updated(self, nbytes: int) -> None:
        if self.closing:
            return
        try:
            frames = self.frames.buffer_updated(nbytes)
        except DecodeError as exc:
            self.close("bad frame", exc)
            return
        self._frames_read(nbytes, frames)

    def data_received(self, data: bytes) -> None:
        """Bytes from a transport that does not read into buffers (and from tests)."""
        if self.closing:
            return
        try:
            frames = self.frames.feed(data)
        except DecodeError as exc:
            self.close("bad frame", exc)
            return
        self._frames_read(len(data), frames)

    def _frames_read(self, nbytes: int, frames: list[Frame]) -> None:
        self.last_active_ms = self.limits.clock.monotonic_ms()
        self.services.metrics.bytes_in.inc(nbytes)
        self.backlog.extend(frames)
        self.queue.add(len(frames))
        self._dispatch_backlog()
        self._update_reading()

    def _dispatch_backlog(self) -> None:
        # A held connection's frames wait (a transport may read once before pausing).
        while (
            self.held is None
            and self.throttle_timer is None
            and self.backlog
            and len(self.pending) < self.max_in_flight
            and not self.closing
        ):
            if self.turn_bytes >= DISPATCH_BYTES_PER_TURN:
                break  # the rest next turn (_next_turn), reading paused meanwhile
            frame = self.backlog.popleft()
            self.turn_bytes += len(frame)
            if self.turn_bytes >= DISPATCH_BYTES_PER_TURN:
                # Counted until crossed, not reset every turn: no callback per read for a
                # connection of small requests, which wait one turn per 256 KiB at most.
                asyncio.get_running_loop().call_soon(self._next_turn)
            if not self._dispatch(frame):
                # Answered at once, refused, or the connection closed: handled either way.
                self.queue.done()

    def _next_turn(self) -> None:
        self.turn_bytes = 0
        if self.closing or self.draining:
            return
        self._dispatch_backlog()
        self._update_reading()

    # -- requests -------------------------------------------------------------------------
    def _dispatch(self, frame: Frame) -> bool:
        """Start the request's handler; False if no handler was started."""
        assert self.info is not None
        session = self.info.sasl
        if session is not None and self.info.authenticated and not self._within_session(session, frame):
            return False
        if not self.info.authenticated and not self._allowed_before_authentication(frame):
            return False
        if len(frame) < _HEADER_PREFIX.size:
            self.close("request shorter than its header", size=len(frame))
            return False
        api_key, version, correlation_id = _HEADER_PREFIX.unpack_from(frame)
        route = self.services.router.route(api_key)
        if route is None:
            self.close("unknown API key", api_key=api_key, api_version=version)
            return False
        if not route.serves(version):
            if api_key == API_VERSIONS_KEY:
                # Unparsed, answered at v0 with the versions we do serve (KIP-511).
                self._answer_unsupported_api_versions(correlation_id, route.min_version, route.max_version)
            else:
                self.close("unsupported version", api_key=api_key, api_version=version)
            return False
        api = route.api
        try:
            reader = Reader(frame)
            header = RequestHeader.read(reader, api.request_header_version(version))
            request = api.request.read(reader, version)
        except DecodeError as exc:
            self.close("malformed request", exc, api_key=api_key, api_version=version)
            return False
        ctx = RequestContext(
            self.services, self.info, api_key, version, correlation_id, header.client_id, request_size=len(frame)
        )
        if self.max_in_flight > 1 and limited(ctx):
            # A client under a quota is served one request at a time, as Kafka serves every
            # connection: each request's throttle time then applies before the next is read,
            # instead of after a pipelined burst.
            self.max_in_flight = 1
        slot = _Slot()
        self.pending.append(slot)
        task = asyncio.get_running_loop().create_task(self._run(slot, ctx, request, time.perf_counter()))
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return True

    # -- SASL -----------------------------------------------------------------------------
    def _allowed_before_authentication(self, frame: Frame) -> bool:
        """Kafka's SaslServerAuthenticator: only ApiVersions and SaslHandshake, then only
        SaslAuthenticate; any other request closes the connection."""
        session = self.info.sasl if self.info is not None else None
        if session is None:
            self.close("unauthenticated connection")
            return False
        if session.bare_tokens and session.state is SaslState.AUTHENTICATE:
            self._bare_token(session, bytes(frame))
            return False
        api_key = _HEADER_PREFIX.unpack_from(frame)[0] if len(frame) >= _HEADER_PREFIX.size else None
        if api_key is None or not session.allows(api_key):
            self.close("request before authentication", api_key=api_key, sasl_state=session.state.value)
            return False
        return True

    def _within_session(self, session: SaslSession, frame: Frame) -> bool:
        """Kafka's SocketServer on an authenticated connection: a SaslHandshake may begin a
        re-authentication; any other request after the session's lifetime closes it."""
        if session.expires_at_ms is None:
            return True
        api_key = _HEADER_PREFIX.unpack_from(frame)[0] if len(frame) >= _HEADER_PREFIX.size else None
        if api_key == SASL_HANDSHAKE_KEY and session.begin_reauthentication():
            assert self.info is not None
            # Until it completes only the exchange is served, as before the first one.
            self.info.authenticated = False
            log.info("re-authentication started", conn=self.info.connection_id, principal=self.info.principal)
            return True
        if session.expired():
            # Counted as odradek_requests_failed{reason="session expired"} (Kafka: expired-connections-killed-count).
            self.close("session expired", api_key=api_key, principal=self.info.principal if self.info else None)
            return False
        return True

    def _bare_token(self, session: SaslSession, token: bytes) -> None:
        """A SASL token after a v0 handshake: a bare frame, answered by a bare frame."""
        try:
            step = session.authenticate(token)
        except SaslFailure:
            self._schedule_flush()  # nothing to answer: v0 has no way to carry the error
            return
        slot = _Slot()
        slot.payload = [struct.pack(">i", len(step.challenge)) + step.challenge]
        slot.done = True
        self.pending.append(slot)
        self._schedule_flush()

    def _authenticated(self, principal: str) -> None:
        assert self.info is not None
        self.info.principal = principal
        self.info.authenticated = True
        self.frames.max_frame_bytes = self.services.config.max_frame_bytes
        session = self.info.sasl
        lifetime = session.session_lifetime_ms if session is not None else 0
        log.info("authenticated", conn=self.info.connection_id, principal=principal, mechanism=self._mechanism(),
                 session_lifetime_ms=lifetime)

    def _authentication_failed(self, reason: str) -> None:
        self.close_after_flush = reason
        self._schedule_flush()

    def _mechanism(self) -> str | None:
        return self.info.sasl.mechanism if self.info is not None and self.info.sasl is not None else None

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        self.queue.done()

    async def _run(self, slot: _Slot, ctx: RequestContext, request: Message, arrived: float) -> None:
        route = self.services.router.routes[ctx.api_key]
        busy: BusyTime[Message | None] | None = None
        try:
            if times_requests(ctx):
                busy = BusyTime(route.handle(ctx, request))
                response = await busy
            else:
                response = await route.handle(ctx, request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # A storage error that escaped (it carries the Kafka code the handler should have
            # answered with) is a handler bug like any other: logged, then the connection closed.
            log.exception("handler failed", conn=ctx.connection.connection_id, api=route.api.name,
                          version=ctx.api_version, error_code=getattr(exc, "error_code", None))
            self.close("handler failed", exc)
            return
        throttle_ms = response_throttle_ms(ctx, None if busy is None else busy.nanos)
        if throttle_ms > 0 and response is not None and hasattr(response, "throttle_time_ms"):
            response.throttle_time_ms = max(response.throttle_time_ms, throttle_ms)
        if response is not None:
            try:
                slot.payload = self._encode_response(ctx, response)
            except Exception as exc:
                log.exception("response encoding failed", conn=ctx.connection.connection_id, api=route.api.name)
                self.close("response encoding failed", exc)
                return
        self.services.metrics.answered(ctx.api_key, ctx.api_version, time.perf_counter() - arrived, response)
        slot.done = True
        if throttle_ms > 0:
            self._throttle(throttle_ms)
        if len(self.pending) == 1 and not self.flush_scheduled:
            # The only response in flight has nothing to go out with: written now, a turn
            # of the loop sooner (a producer with one request in flight waits for it).
            self._flush()
        else:
            self._schedule_flush()

    # -- quotas (broker/quotas/) ------------------------------------------------------------
    def _throttle(self, throttle_ms: int) -> None:
        """Reads and handles nothing more for `throttle_ms` (Kafka mutes the channel)."""
        if self.closing:
            return
        clock = self.services.quotas.clock
        until = clock.monotonic_ms() + throttle_ms
        if self.throttle_timer is not None:
            if until <= self.throttled_until_ms:
                return
            self.throttle_timer.cancel()
        self.throttled_until_ms = until
        self.throttle_timer = clock.call_later(throttle_ms, self._unthrottle)
        self._update_reading()

    def _unthrottle(self) -> None:
        self.throttle_timer = None
        if self.closing or self.draining:
            return
        self._dispatch_backlog()
        self._update_reading()

    def _encode_response(self, ctx: RequestContext, response: Message) -> list[RecordsData]:
        api = self.services.router.routes[ctx.api_key].api
        w = Writer()
        w.int32(0)  # size, filled in below
        ResponseHeader(correlation_id=ctx.correlation_id).write(w, api.response_header_version(ctx.api_version))
        response.write(w, ctx.api_version)
        buffers = w.buffers()
        struct.pack_into(">i", buffers[0], 0, w.size() - 4)
        return buffers

    def _answer_unsupported_api_versions(self, correlation_id: int, lo: int, hi: int) -> None:
        body = ApiVersionsResponse(
            error_code=UNSUPPORTED_VERSION, api_keys=[ApiVersion(API_VERSIONS_KEY, lo, hi)]
        )
        w = Writer()
        w.int32(0)
        ResponseHeader(correlation_id=correlation_id).write(w, 0)
        body.write(w, 0)
        struct.pack_into(">i", w.buf, 0, len(w.buf) - 4)
        slot = _Slot()
        slot.payload = [w.buf]
        slot.done = True
        self.pending.append(slot)
        self._schedule_flush()

    def _schedule_flush(self) -> None:
        # Responses finished in the same loop iteration go out in one write.
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Writes every finished response that has no unfinished one before it."""
        self.flush_scheduled = False
        if self.transport is None or self.closing:
            return
        pending = self.pending
        out: list[RecordsData] = []
        while pending and pending[0].done:
            payload = pending.popleft().payload
            if payload is not None:
                out.extend(payload)
        if out:
            # Idle time counts from the last response too: a long poll just answered is fresh.
            self.last_active_ms = self.limits.clock.monotonic_ms()
            self.services.metrics.bytes_out.inc(sum(len(b) for b in out))
            write_response(self.transport, out, self.sendfile_fd)
        if self.close_after_flush is not None and not pending:
            self.close("authentication failed", detail=self.close_after_flush, mechanism=self._mechanism())
            return
        if not self.draining:
            self._dispatch_backlog()
        self._update_reading()

    def _update_reading(self) -> None:
        if self.transport is None or self.closing or self.draining:
            return
        should_pause = (
            self.held is not None
            or self.turn_bytes >= DISPATCH_BYTES_PER_TURN
            or self.throttle_timer is not None
            or self.writing_paused
            or len(self.pending) >= self.max_in_flight
            or self.queue.full
        )
        if should_pause and not self.reading_paused:
            self.transport.pause_reading()
            self.reading_paused = True
        elif not should_pause and self.reading_paused:
            self.transport.resume_reading()
            self.reading_paused = False

    # -- idle expiry (broker/connection_limits.py) ------------------------------------------
    def idle_since_ms(self) -> int | None:
        if self.pending or self.backlog or self.closing:
            return None
        return self.last_active_ms

    def close_idle(self, idle_ms: int) -> None:
        self.close("idle", idle_ms=idle_ms)

    # -- closing --------------------------------------------------------------------------
    def close(self, reason: str, exc: BaseException | None = None, **fields: object) -> None:
        if self.closing:
            return
        self.closing = True
        self.services.metrics.failed.labels(reason).inc()
        conn = self.info.connection_id if self.info else None
        peer = self.info.peer if self.info else None
        log.warning("closing connection", conn=conn, peer=peer, reason=reason, error=str(exc) if exc else None, **fields)
        if self.transport is not None:
            self.transport.close()

    async def drain(self, timeout: float) -> None:
        """Lets in-flight requests finish and their responses go out, for a graceful stop."""
        self.draining = True
        if self.transport is not None and not self.closing and not self.reading_paused:
            self.transport.pause_reading()
            self.reading_paused = True
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=timeout)
        self._flush()
        if self.transport is not None:
            self.transport.close()
