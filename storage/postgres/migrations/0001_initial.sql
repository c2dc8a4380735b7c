-- The PostgreSQL storage engine's first schema (storage/postgres/schema.py applies it).

-- One row: whether the last broker using this database shut down cleanly.
CREATE TABLE engine_state (
    id smallint PRIMARY KEY CHECK (id = 0),
    clean_shutdown boolean NOT NULL
);
INSERT INTO engine_state (id, clean_shutdown) VALUES (0, false);

-- The topic catalog (storage/catalog.py's TopicRecord).
CREATE TABLE topics (
    topic_id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    num_partitions integer NOT NULL,
    configs jsonb NOT NULL
);

-- Per-partition checkpoints; a partition without a row starts at offset 0.
CREATE TABLE partitions (
    topic_id uuid NOT NULL,
    partition integer NOT NULL,
    log_start_offset bigint NOT NULL DEFAULT 0,
    cleaner_checkpoint bigint NOT NULL DEFAULT 0,
    -- The base of the segment appends go to, which may hold no batch yet (just rolled).
    active_segment_base bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (topic_id, partition)
);

-- One row per record batch, stored raw as the broker wrote it (offsets assigned): a read
-- concatenates payloads and never re-encodes. The header fields beside it are for SQL
-- (retention, DeleteRecords, inspection); `segment_base` is the base offset of the
-- in-memory segment holding the batch, so a reload rebuilds the same segments.
CREATE TABLE batches (
    topic_id uuid NOT NULL,
    partition integer NOT NULL,
    base_offset bigint NOT NULL,
    last_offset bigint NOT NULL,
    segment_base bigint NOT NULL,
    base_timestamp bigint NOT NULL,
    max_timestamp bigint NOT NULL,
    producer_id bigint NOT NULL,
    producer_epoch smallint NOT NULL,
    base_sequence integer NOT NULL,
    last_sequence integer NOT NULL,
    transactional boolean NOT NULL,
    control boolean NOT NULL,
    payload bytea NOT NULL,
    -- One writer per partition assigns offsets in memory; this key is the last guard.
    PRIMARY KEY (topic_id, partition, base_offset)
);
