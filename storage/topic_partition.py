"""The name of one partition of one topic, as every layer above the log passes it around."""

TopicPartition = tuple[str, int]
