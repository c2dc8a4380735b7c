"""The admin CLI's Kafka client on odradek/wire.py's connection: one connection per node,
API versions agreed per connection (the highest both sides know), requests routed to the
partition leader or the group/transaction coordinator as Kafka's AdminClient does."""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from typing import Any, TypeVar

from odradek.client_config import ClientSecurity
from odradek.wire import WireConnection, WireError, error_name, parse_host_port
from protocol.apis import API_VERSIONS_KEY
from protocol.errors import ErrorCode
from protocol.message import Message
from protocol.messages import API_SPECS
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.sasl_client import SaslAuthenticationError

CLIENT_ID = "odradek-cli"
# Coordinator lookups are retried while the coordinator loads its state, as clients do.
RETRY_SECONDS = 10.0

M = TypeVar("M", bound=Message)


class CliError(Exception):
    """A failure reported to the user as one line, with exit code 1; `output`, if any, is
    printed first (what was done before the failure, as Kafka's tools print per item)."""

    def __init__(self, message: str, output: Any = None) -> None:
        super().__init__(message)
        self.output = output


def check(code: int, what: str, message: str | None = None) -> None:
    if code != ErrorCode.NONE:
        detail = f": {message}" if message else ""
        raise CliError(f"{what}: {error_name(code)}{detail}")


@dataclass(frozen=True)
class Node:
    node_id: int
    host: str
    port: int


class Connection:
    """odradek/wire.py's connection, secured as `security` says (TLS, a SASL login), with the
    API versions the broker serves agreed on opening and every failure reported as a CliError."""

    def __init__(self, host: str, port: int, timeout: float, security: ClientSecurity | None = None) -> None:
        self.address = f"{host}:{port}"
        self.security = security or ClientSecurity()
        # Requests answered: a listener of another security protocol closes before the
        # first one past ApiVersions (which a SASL listener answers before the login).
        self.answered = 0
        try:
            self.wire = WireConnection(host, port, timeout, client_id=CLIENT_ID,
                                       ssl_context=self.security.ssl_context, sasl=self.security.sasl)
        except SaslAuthenticationError as exc:
            raise CliError(str(exc)) from None
        except WireError as exc:
            raise CliError(f"{exc}{self._protocol_hint()}") from None
        except ssl.SSLCertVerificationError as exc:
            raise CliError(f"cannot connect to {self.address}: its certificate does not verify: "
                           f"{exc.verify_message}") from None
        except ssl.SSLError as exc:
            raise CliError(f"cannot connect to {self.address}: TLS handshake failed: {exc.reason or exc}"
                           f"{self._protocol_hint()}") from None
        except OSError as exc:
            raise CliError(f"cannot connect to {self.address}: {exc.strerror or exc}") from None
        self.versions: dict[int, tuple[int, int]] = {}
        self._negotiate()

    def _protocol_hint(self) -> str:
        if self.answered > 1:
            return ""
        protocol = self.security.protocol
        if self.security.ssl_context is None:
            return f" (is the listener's security.protocol {protocol}? see --command-config)"
        return f" (is the listener's security.protocol {protocol}? does it require a client certificate? " \
               "see --command-config)"

    def close(self) -> None:
        self.wire.close()

    def _negotiate(self) -> None:
        # v0 is understood by every broker; its answer lists the versions of every API.
        resp: Any = self._call(API_VERSIONS_KEY, 0, ApiVersionsRequest())
        check(resp.error_code, "ApiVersions")
        self.versions = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}

    def version(self, api_key: int, preferred: int) -> int:
        """The highest version up to `preferred` that the broker serves."""
        spec = API_SPECS[api_key]
        if api_key not in self.versions:
            raise CliError(f"the broker at {self.address} does not serve {spec.name}")
        low, high = self.versions[api_key]
        chosen = min(preferred, high, spec.max_version)
        if chosen < max(low, spec.min_version):
            raise CliError(f"no version of {spec.name} is known to both the broker and this tool")
        return chosen

    def call(self, request: Message, preferred: int) -> Any:
        api_key = request.API_KEY
        return self._call(api_key, self.version(api_key, preferred), request)

    def _call(self, api_key: int, version: int, request: Message) -> Any:
        try:
            answer = self.wire.call(api_key, version, request)
        except WireError as exc:
            raise CliError(f"{exc}{self._protocol_hint()}") from None
        except ssl.SSLError as exc:
            # TLS 1.3 reports a refused client certificate on the first read, not the handshake.
            raise CliError(f"connection to {self.address} failed: TLS: {exc.reason or exc}"
                           f"{self._protocol_hint()}") from None
        except OSError as exc:
            raise CliError(f"connection to {self.address} failed: {exc.strerror or exc}") from None
        self.answered += 1
        return answer


def parse_bootstrap(servers: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for item in servers.split(","):
        try:
            out.append(parse_host_port(item))
        except ValueError:
            raise CliError(f"bad bootstrap server {item.strip()!r}: expected host:port") from None
    return out


class Cluster:
    """Connections to the bootstrap server and, on demand, to the other nodes."""

    def __init__(self, bootstrap: str, timeout: float = 10.0, security: ClientSecurity | None = None) -> None:
        self.timeout = timeout
        self.security = security or ClientSecurity()
        self.nodes: dict[int, Node] = {}
        self._conns: dict[int, Connection] = {}
        errors: list[str] = []
        for host, port in parse_bootstrap(bootstrap):
            try:
                self.bootstrap = Connection(host, port, timeout, self.security)
                break
            except CliError as exc:
                errors.append(str(exc))
        else:
            raise CliError("; ".join(errors))

    def close(self) -> None:
        self.bootstrap.close()
        for conn in self._conns.values():
            conn.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def metadata(self, topics: list[str] | None, *, auto_create: bool = False) -> Any:
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=auto_create,
        )
        resp = self.bootstrap.call(request, 12)
        self.nodes = {b.node_id: Node(b.node_id, b.host, b.port) for b in resp.brokers}
        return resp

    def node(self, node_id: int) -> Connection:
        if node_id not in self._conns:
            if node_id not in self.nodes:
                self.metadata([])
            if node_id not in self.nodes:
                raise CliError(f"node {node_id} is not in the cluster's metadata")
            n = self.nodes[node_id]
            self._conns[node_id] = Connection(n.host, n.port, self.timeout, self.security)
        return self._conns[node_id]

    def any_node(self) -> Connection:
        return self.bootstrap

    def leaders(self, topics: list[str]) -> dict[str, dict[int, int]]:
        """Each partition's leader, by topic; an unknown topic is an error."""
        resp = self.metadata(topics)
        out: dict[str, dict[int, int]] = {}
        for t in resp.topics:
            if t.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
                raise CliError(f"topic {t.name} does not exist")
            check(t.error_code, f"topic {t.name}")
            out[t.name] = {p.partition_index: p.leader_id for p in t.partitions}
        return out

    def coordinator(self, key: str, key_type: int) -> Connection:
        """The group (key_type 0) or transaction (1) coordinator of `key`."""
        deadline = time.monotonic() + RETRY_SECONDS
        while True:
            resp: Any = self.bootstrap.call(
                FindCoordinatorRequest(key=key, key_type=key_type, coordinator_keys=[key]), 4
            )
            if resp.coordinators:
                c = resp.coordinators[0]
                code, node_id, host, port, msg = c.error_code, c.node_id, c.host, c.port, c.error_message
            else:
                code, node_id, host, port, msg = resp.error_code, resp.node_id, resp.host, resp.port, resp.error_message
            if code == ErrorCode.NONE:
                self.nodes.setdefault(node_id, Node(node_id, host, port))
                return self.node(node_id)
            if not ErrorCode(code).retriable or time.monotonic() > deadline:
                check(code, f"finding the coordinator of {key!r}", msg)
            time.sleep(0.1)
