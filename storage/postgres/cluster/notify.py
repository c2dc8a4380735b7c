"""The LISTEN/NOTIFY channel of a cluster's brokers: the payload says what changed
(`catalog`: the topics; `leaders`: partition leadership; `brokers`: membership;
`metadata`: the ACLs, SCRAM credentials or dynamic configs, storage/postgres/cluster_metadata.py)."""

CLUSTER_CHANNEL = "odradek_cluster"
METADATA_PAYLOAD = "metadata"
