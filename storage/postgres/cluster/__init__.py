"""Several brokers over one PostgreSQL database: membership, the controller, leadership
and fencing (docs/cluster.md)."""
