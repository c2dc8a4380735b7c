"""KIP-848 consumer groups (ConsumerGroupHeartbeat): the groups, their records, the
server-side assignors, each member's reconciliation, and the classic protocol's members
that a consumer group takes."""
