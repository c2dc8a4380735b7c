"""The PostgreSQL storage engine: the log, the catalog and the checkpoints in PostgreSQL.

`PostgresStorage` (storage.postgres.engine) runs the same log logic as the other engines
(storage.log over in-memory segments) and makes every write durable by a group-committed
SQL transaction instead of an fsync round (storage.postgres.group_commit).
"""
