"""The LISTEN/NOTIFY channel of a cluster's brokers: the payload says what changed
(`catalog`: the topics; `leaders`: partition leadership; `brokers`: membership)."""

CLUSTER_CHANNEL = "odradek_cluster"
