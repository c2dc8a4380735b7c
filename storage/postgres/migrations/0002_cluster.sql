-- Several brokers over one database (storage/postgres/cluster/): membership, the cluster
-- id they share, and who leads each partition.

-- One row: the cluster id every broker of the database answers with.
CREATE TABLE cluster_identity (
    id smallint PRIMARY KEY CHECK (id = 0),
    cluster_id text NOT NULL
);

-- The registered brokers. A broker is alive while its session holds the advisory lock of
-- its node id (storage/postgres/cluster/membership.py); `heartbeat` (the database's
-- clock) tells a silent one, whose sessions the others end after the session timeout.
CREATE TABLE brokers (
    node_id integer PRIMARY KEY,
    -- [[listener name, host, port], ...]: the advertised listeners.
    listeners jsonb NOT NULL,
    rack text,
    -- The broker process's token, in the application_name of its sessions.
    incarnation text NOT NULL,
    registered_at timestamptz NOT NULL,
    heartbeat timestamptz NOT NULL,
    session_timeout_ms integer NOT NULL,
    -- Stopping (SIGTERM): the controller moves its partitions away first (Kafka's
    -- controlled shutdown).
    shutting_down boolean NOT NULL DEFAULT false
);

-- The leader of each partition and its epoch, written by the controller. Every round of a
-- leader reads its partitions' rows FOR SHARE in its transaction (fencing.py), so an epoch
-- bump waits for the rounds in flight and fences the later ones.
CREATE TABLE partition_leaders (
    topic_id uuid NOT NULL,
    partition integer NOT NULL,
    leader_id integer,
    leader_epoch integer NOT NULL DEFAULT 0,
    PRIMARY KEY (topic_id, partition)
);

-- Each partition's leader epochs and the offset each began at (Kafka's
-- LeaderEpochFileCache), written by a new leader once it has loaded the partition: what
-- OffsetForLeaderEpoch answers from.
CREATE TABLE leader_epochs (
    topic_id uuid NOT NULL,
    partition integer NOT NULL,
    leader_epoch integer NOT NULL,
    start_offset bigint NOT NULL,
    PRIMARY KEY (topic_id, partition, leader_epoch)
);
