"""The admin CLI: Kafka's admin tools' commands over the wire protocol alone, so it works
against any Kafka-compatible broker."""
