"""A broker with ACLs on, and ACL bindings over the raw wire, for the security and quota tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.messages.create_acls_request import AclCreation
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from tests.broker_process import BrokerProcess, free_port
from tests.kafka_wire import WireClient

# Kafka's codes (ResourceType, PatternType, AclOperation, AclPermissionType).
TOPIC, GROUP, CLUSTER, TXN_ID = 2, 3, 4, 5


ANY, MATCH, LITERAL, PREFIXED = 1, 2, 3, 4


ALL, READ, WRITE, DESCRIBE = 2, 3, 4, 8


DENY, ALLOW = 2, 3


JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required '
    'user_admin="admin-pw" user_alice="alice-pw" user_bob="bob-pw";'
)


@dataclass
class AclBroker:
    process: BrokerProcess
    sasl_port: int

    def login(self, user: str) -> WireClient:
        client = WireClient(f"127.0.0.1:{self.sasl_port}")
        handshake: Any = client.call(17, 1, SaslHandshakeRequest(mechanism="PLAIN"))
        assert handshake.error_code == 0
        done: Any = client.call(36, 2, SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{user}-pw".encode()))
        assert done.error_code == 0, done.error_message
        return client


def _start(root: Path, overrides: dict[str, str] | None = None) -> AclBroker:
    port, sasl_port = free_port(), free_port()
    process = BrokerProcess(root / "data", {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.jaas.config": JAAS,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:admin",
        "auto.create.topics.enable": "false",
        **(overrides or {}),
    }, port)
    process.start()
    return AclBroker(process, sasl_port)


def _acl(rtype: int, name: str, pattern: int, principal: str, op: int, permission: int) -> AclCreation:
    return AclCreation(resource_type=rtype, resource_name=name, resource_pattern_type=pattern,
                       principal=principal, host="*", operation=op, permission_type=permission)
