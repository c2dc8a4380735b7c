"""UnregisterBroker (KIP-500): Kafka's controller drops a broker's registration (meant for a
broker shut down for good; a live one so unregistered drops out of the metadata until it
restarts). odradek's registered brokers are its live ones (docs/cluster.md): a live broker's
id is answered as Kafka answers it and changes nothing; any other id is refused as Kafka's
ReplicationControlManager refuses it."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.unregister_broker_request import UnregisterBrokerRequest
from protocol.messages.unregister_broker_response import UnregisterBrokerResponse

API_KEY = 64


async def handle(ctx: RequestContext, request: UnregisterBrokerRequest) -> UnregisterBrokerResponse:
    # Kafka 4.0 forwards the request to its controller, whose answer reaches the client
    # without its message: the texts below are the empty ones it gets.
    if not cluster_allowed(ctx, AclOperation.ALTER):
        return UnregisterBrokerResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message="")
    live = {b.node_id for b in ctx.cluster.live_brokers(ctx.connection.listener)}
    if request.broker_id not in live:
        return UnregisterBrokerResponse(error_code=ErrorCode.BROKER_ID_NOT_REGISTERED, error_message="")
    return UnregisterBrokerResponse(error_message=None)
