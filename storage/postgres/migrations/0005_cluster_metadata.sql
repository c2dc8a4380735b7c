-- The cluster's metadata beside the topics (storage/postgres/cluster_metadata.py): the
-- ACLs, the SCRAM credentials and the dynamic configs, one JSON document each, what Kafka
-- keeps in its metadata log. `version` grows by one at every change, so a broker told of a
-- change (NOTIFY 'metadata') reads only the documents newer than its own.
CREATE TABLE cluster_metadata (
    name text PRIMARY KEY,
    doc jsonb NOT NULL,
    version bigint NOT NULL
);
