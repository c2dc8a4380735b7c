"""Gauges read at scrape time from the storage engine and the coordinators, through their
interfaces: nothing is counted on the append path. Scrapes run on the event loop
(`broker.metrics.endpoint`), so the state read here is never mid-change."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from coordinator.group import GroupState
from coordinator.group.runtime import CoordinatorStatus as GroupCoordinatorStatus
from coordinator.transaction import CoordinatorStatus, TransactionState

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

    from broker.request_queue import RequestQueue
    from coordinator.group import GroupCoordinator
    from coordinator.share.coordinator import ShareCoordinator
    from coordinator.transaction import TransactionCoordinator
    from storage.engine import StorageEngine
    from storage.postgres.cluster.node import ClusterNode

# A transaction is open from its first AddPartitionsToTxn until its markers are written.
OPEN_TRANSACTION_STATES = (
    TransactionState.ONGOING,
    TransactionState.PREPARE_COMMIT,
    TransactionState.PREPARE_ABORT,
    TransactionState.PREPARE_EPOCH_FENCE,
)


class Observed(Protocol):
    """What the gauges read (broker.services.Services): declared here so that the metrics
    never import the broker's assembly, which counts requests with them."""

    @property
    def connections(self) -> Collection[object]: ...

    @property
    def storage(self) -> StorageEngine: ...

    @property
    def group_coordinator(self) -> GroupCoordinator: ...

    @property
    def transactions(self) -> TransactionCoordinator: ...

    @property
    def share_coordinator(self) -> ShareCoordinator: ...

    @property
    def cluster_node(self) -> ClusterNode | None: ...

    @property
    def request_queue(self) -> RequestQueue: ...


def coordinators_ready(services: Observed) -> bool:
    return (
        services.group_coordinator.status is GroupCoordinatorStatus.ACTIVE
        and services.transactions.status is CoordinatorStatus.ACTIVE
    )


class BrokerCollector(Collector):
    def __init__(self, services: Observed, data_dir: Path) -> None:
        self.services = services
        self.data_dir = data_dir

    def collect(self) -> Iterator[Metric]:
        yield from self._connections()
        yield from self._disk()
        yield from self._logs()
        yield from self._groups()
        yield from self._share_groups()
        yield from self._transactions()
        yield from self._coordinators()
        yield from self._cluster()

    def _connections(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "odradek_connections", "Client connections open now.", value=len(self.services.connections)
        )
        # Kafka's RequestQueueSize: requests read and not yet answered (queued.max.requests).
        yield GaugeMetricFamily(
            "odradek_request_queue_size", "Requests read from the network and not yet answered.",
            value=self.services.request_queue.size,
        )

    def _disk(self) -> Iterator[Metric]:
        # The file system of the data folder (log.dirs): the file engine's log, and the
        # broker's own metadata with any engine.
        free = GaugeMetricFamily(
            "odradek_log_dir_free_bytes", "Bytes available to the broker on its data folder's file system.",
            labels=["dir"],
        )
        total = GaugeMetricFamily(
            "odradek_log_dir_total_bytes", "Size of the data folder's file system.", labels=["dir"]
        )
        try:
            stat = os.statvfs(self.data_dir)
        except OSError:  # the folder is gone: no figures rather than a failed scrape
            pass
        else:
            free.add_metric([str(self.data_dir)], stat.f_bavail * stat.f_frsize)
            total.add_metric([str(self.data_dir)], stat.f_blocks * stat.f_frsize)
        yield free
        yield total

    def _logs(self) -> Iterator[Metric]:
        storage = self.services.storage
        topics = GaugeMetricFamily("odradek_topics", "Topics, internal ones included.")
        partitions = GaugeMetricFamily("odradek_partitions", "Partitions of every topic.")
        size = GaugeMetricFamily("odradek_log_size_bytes", "Bytes of a partition's log segments.", labels=["topic", "partition"])
        end = GaugeMetricFamily("odradek_log_end_offset", "A partition's log end offset.", labels=["topic", "partition"])
        lso_lag = GaugeMetricFamily(
            "odradek_lso_lag",
            "High watermark minus last stable offset: offsets held back from read_committed consumers by open transactions.",
            labels=["topic", "partition"],
        )
        infos = storage.list_topics()
        count = 0
        for info in infos:
            for p in range(info.num_partitions):
                log = storage.log(info.name, p)
                labels = [info.name, str(p)]
                size.add_metric(labels, log.size_bytes)
                end.add_metric(labels, log.log_end_offset)
                lso_lag.add_metric(labels, log.high_watermark - log.last_stable_offset)
                count += 1
        topics.add_metric([], len(infos))
        partitions.add_metric([], count)
        yield from (topics, partitions, size, end, lso_lag)

    def _groups(self) -> Iterator[Metric]:
        by_state = Counter(group.state for group in self.services.group_coordinator.groups.values())
        groups = GaugeMetricFamily("odradek_consumer_groups", "Classic consumer groups by state.", labels=["state"])
        for state in GroupState:
            groups.add_metric([state.value], by_state.get(state, 0))
        yield groups

    def _share_groups(self) -> Iterator[Metric]:
        """Share groups (KIP-932): members, and per share partition the records in flight and
        what happened to deliveries since the share partition was loaded."""
        share = self.services.share_coordinator
        members = GaugeMetricFamily("odradek_share_group_members", "Members of a share group.", labels=["group"])
        for group_id, group in share.membership.groups.items():
            members.add_metric([group_id], len(group.members))
        yield members
        names = {t.topic_id: t.name for t in self.services.storage.list_topics()}
        labels = ["group", "topic", "partition"]
        in_flight = GaugeMetricFamily(
            "odradek_share_in_flight_records", "Records between a share partition's start and end offsets.",
            labels=labels)
        families = {
            field: GaugeMetricFamily(f"odradek_share_{field}", help_text, labels=labels)
            for field, help_text in (
                ("acquired_records", "Deliveries made (acquisitions) since the share partition was loaded."),
                ("redelivered_records", "Deliveries after the first since the share partition was loaded."),
                ("acknowledged_records", "Records accepted since the share partition was loaded."),
                ("archived_records", "Records rejected or archived at the delivery limit since the share partition was loaded."),
                ("lock_timeouts", "Records whose acquisition lock ran out since the share partition was loaded."),
            )
        }
        for key, sp in share.partitions.partitions.items():
            values = [key.group_id, names.get(key.topic_id, str(key.topic_id)), str(key.partition)]
            in_flight.add_metric(values, sp.in_flight_count)
            for field, family in families.items():
                family.add_metric(values, getattr(sp.stats, field))
        yield in_flight
        yield from families.values()

    def _transactions(self) -> Iterator[Metric]:
        coordinator = self.services.transactions
        by_state: Counter[TransactionState] = Counter()
        oldest_start: int | None = None
        for txn in coordinator.state:
            by_state[txn.state] += 1
            if txn.state in OPEN_TRANSACTION_STATES and txn.start_timestamp >= 0:
                oldest_start = txn.start_timestamp if oldest_start is None else min(oldest_start, txn.start_timestamp)
        states = GaugeMetricFamily(
            "odradek_transactional_ids", "Transactional ids the coordinator holds, by state.", labels=["state"]
        )
        for state in TransactionState:
            states.add_metric([state.state_name], by_state.get(state, 0))
        yield states
        yield GaugeMetricFamily(
            "odradek_open_transactions",
            "Transactions begun and not yet completed (Ongoing or Prepare*).",
            value=sum(by_state.get(s, 0) for s in OPEN_TRANSACTION_STATES),
        )
        age = 0.0 if oldest_start is None else max(0, coordinator.clock.now_ms() - oldest_start) / 1000
        yield GaugeMetricFamily(
            "odradek_oldest_open_transaction_age_seconds",
            "Age of the oldest open transaction; 0 when none is open.",
            value=age,
        )

    def _coordinators(self) -> Iterator[Metric]:
        loaded = GaugeMetricFamily(
            "odradek_coordinator_load_seconds",
            "How long the last load of a coordinator's state from its internal topic took.",
            labels=["coordinator"],
        )
        ready = GaugeMetricFamily(
            "odradek_coordinator_ready", "1 once a coordinator has loaded and serves.", labels=["coordinator"]
        )
        groups, transactions = self.services.group_coordinator, self.services.transactions
        for name, seconds, active in (
            ("group", groups.load_seconds, groups.status is GroupCoordinatorStatus.ACTIVE),
            ("transaction", transactions.load_seconds, transactions.status is CoordinatorStatus.ACTIVE),
        ):
            if seconds is not None:
                loaded.add_metric([name], seconds)
            ready.add_metric([name], 1 if active else 0)
        yield loaded
        yield ready

    def _cluster(self) -> Iterator[Metric]:
        """Leadership in a cluster (docs/cluster.md). The families are served by a single
        broker too, empty, so that dashboards and alerts name series that exist."""
        node = self.services.cluster_node
        changes = CounterMetricFamily(
            "odradek_leadership_changes",
            "Partition leaderships this broker won (took over) and lost (released) since it started.",
            labels=["change"],
        )
        led = GaugeMetricFamily("odradek_partitions_led", "Partitions this broker leads and serves now.")
        epochs = GaugeMetricFamily(
            "odradek_partition_leader_epoch", "The leader epoch of each partition this broker leads.",
            labels=["topic", "partition"],
        )
        controller = GaugeMetricFamily(
            "odradek_cluster_controller", "1 while this broker is the cluster's controller, else 0."
        )
        live = GaugeMetricFamily("odradek_cluster_live_brokers", "Live brokers this broker saw at its last heartbeat.")
        if node is not None:
            changes.add_metric(["won"], node.won_total)
            changes.add_metric(["lost"], node.lost_total)
            serving = node.leadership.serving
            led.add_metric([], len(serving))
            names = {t.topic_id: t.name for t in self.services.storage.list_topics()}
            for (topic_id, partition), epoch in sorted(serving.items()):
                epochs.add_metric([names.get(topic_id, str(topic_id)), str(partition)], epoch)
            controller.add_metric([], 1 if node.is_controller else 0)
            live.add_metric([], len(node.brokers))
        yield from (changes, led, epochs, controller, live)
