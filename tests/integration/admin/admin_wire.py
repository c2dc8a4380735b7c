"""CreateTopics and DescribeConfigs over the raw wire, for the admin tests."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import (
    CreatableTopic,
    CreatableTopicConfig,
    CreateTopicsRequest,
)
from protocol.messages.create_topics_response import CreatableTopicResult, CreateTopicsResponse
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.describe_configs_response import DescribeConfigsResponse, DescribeConfigsResult
from tests.kafka_wire import WireClient

CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS = 19, 20, 37


DESCRIBE_CONFIGS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS, DESCRIBE_CLUSTER = 32, 33, 44, 60


TOPIC, BROKER = 2, 4


def create(
    client: WireClient, *topics: CreatableTopic, version: int = 7, validate_only: bool = False
) -> list[CreatableTopicResult]:
    response = client.call(
        CREATE_TOPICS, version, CreateTopicsRequest(topics=list(topics), validate_only=validate_only)
    )
    assert isinstance(response, CreateTopicsResponse)
    return response.topics


def topic(name: str, partitions: int = 1, rf: int = 1, **configs: str) -> CreatableTopic:
    return CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=rf,
        configs=[CreatableTopicConfig(k.replace("_", "."), v) for k, v in configs.items()],
    )


def describe(
    client: WireClient,
    resource_type: int,
    name: str,
    keys: list[str] | None = None,
    version: int = 4,
    include_synonyms: bool = False,
) -> DescribeConfigsResult:
    request = DescribeConfigsRequest(
        resources=[DescribeConfigsResource(resource_type, name, keys)],
        include_synonyms=include_synonyms,
        include_documentation=version >= 3,
    )
    response = client.call(DESCRIBE_CONFIGS, version, request)
    assert isinstance(response, DescribeConfigsResponse)
    return response.results[0]


def topic_exists(client: WireClient, name: str) -> bool:
    return describe(client, TOPIC, name, ["retention.ms"]).error_code == ErrorCode.NONE
