"""Jepsen-style proof under faults: a workload of real clients, a nemesis that breaks the
broker's process, network and disk (power loss included), and a checker that reads the
clients' histories and reports Kafka's anomaly families. Run with `make faults`."""
