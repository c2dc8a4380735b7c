"""The campaign's cluster mode (`python -m faults --cluster`): three brokers over one
PostgreSQL (docs/cluster.md), the workload's clients bootstrapping from all of them, and
the faults of a cluster aimed at the broker that matters: the leader of a partition, the
transaction or group coordinator, the controller.

The nemesis finds its targets as a client does, over the wire (Metadata, FindCoordinator)
from the brokers that are up; when no broker answers it aims at one drawn at random."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from odradek.cli.client import CliError, Cluster
from odradek.testing import OdradekBroker, free_port
from protocol.errors import ErrorCode
from protocol.messages.find_coordinator_request import FindCoordinatorRequest

from .postgres import Postgres, pg_fault

BROKERS = 3
# Short, as in tests/integration/cluster/conftest.py: a paused leader loses its partitions
# within the pause (4-6 s), so the pause tests fencing rather than a slow leader.
SESSION_TIMEOUT_MS = 3000
CLUSTER_OVERRIDES = {
    "cluster.enable": "true",
    "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
    "broker.heartbeat.interval.ms": "300",
}
CLUSTER_FAULTS = (
    "kill-leader",  # kill -9 of the leader of one of the workload's partitions
    "kill-txn-coordinator",  # ... of a transactional producer's coordinator
    "kill-group-coordinator",  # ... of the consumer group's coordinator
    "kill-controller",
    "pause-leader",  # SIGSTOP past the session timeout, then SIGCONT: fenced
    # ... of a transactional producer's or the group's coordinator: resumed, it answers
    # from nothing it kept in memory (its membership lease lapsed)
    "pause-txn-coordinator",
    "pause-group-coordinator",
    "pg-stop",  # PostgreSQL stopped cleanly under load, started again
    "pg-crash",  # ... as a crash (`-m immediate`): recovery from its WAL
    "rolling-restart",  # every broker in turn: SIGTERM (controlled shutdown), started again
)
# The killed broker stays down this long (seconds) before it starts again: long enough
# for its partitions and coordinators to move, so the clients fail over.
DOWN_SECONDS = (0.5, 3.0)
LOOKUP_TIMEOUT = 3.0
LOOKUP_SECONDS = 5.0
# Starts of a broker before the campaign gives up on it.
START_ATTEMPTS = 3


def _free_ports(n: int, taken: Collection[int]) -> list[int]:
    """`n` free ports, none of them `taken` (picked but not bound yet, as PostgreSQL's and its
    proxy's are when the brokers are made: the kernel may hand the same port out again)."""
    ports: list[int] = []
    while len(ports) < n:
        port = free_port()
        if port not in taken and port not in ports:
            ports.append(port)
    return ports


class BrokerCluster:
    """The brokers with node ids 1..BROKERS, each on its own loopback port and directory
    for all its restarts; `broken` runs faults/broken_broker.py's bug in every one."""

    def __init__(
        self,
        workdir: Path,
        overrides: dict[str, str],
        broken: str | None,
        log: Callable[[str], None],
        taken: Collection[int] = (),
    ) -> None:
        entry = ["-m", "faults.broken_broker", broken] if broken else ["-m", "broker"]
        ports = _free_ports(BROKERS, taken)
        self.brokers = {
            node_id: OdradekBroker(
                workdir / f"broker-{node_id}-data",
                {**overrides, "node.id": str(node_id)},
                ports[node_id - 1],
                entry=entry,
                log_path=workdir / f"broker-{node_id}.log",
            )
            for node_id in range(1, BROKERS + 1)
        }
        self.log = log

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values())

    def start(self, timeout: float) -> None:
        """All brokers at once (each start waits for a Python process to listen)."""
        with ThreadPoolExecutor(len(self.brokers)) as pool:
            for started in [pool.submit(b.start, timeout) for b in self.brokers.values()]:
                started.result()

    def stop(self) -> None:
        """The run is over: all brokers stopped at once, killed if SIGTERM is ignored."""

        def stop(node_id: int, broker: OdradekBroker) -> None:
            try:
                broker.stop(30)
            except RuntimeError:
                self.log(f"broker {node_id} ignored SIGTERM")

        with ThreadPoolExecutor(len(self.brokers)) as pool:
            list(pool.map(stop, self.brokers, self.brokers.values()))

    def _answering(self) -> str:
        """The bootstrap list of the brokers that are up and not paused."""
        return ",".join(b.bootstrap for b in self.brokers.values() if b.alive and not b.paused)

    def _random(self, rng: random.Random) -> int:
        return rng.choice(sorted(self.brokers))

    def _ask(self, question: Callable[[Cluster], int]) -> int:
        """A node id asked of the brokers that answer, again while the answer is none (no
        leader yet, a coordinator loading) for up to LOOKUP_SECONDS; -1 if none came."""
        deadline = time.monotonic() + LOOKUP_SECONDS
        while True:
            try:
                with Cluster(self._answering(), LOOKUP_TIMEOUT) as cluster:
                    node = question(cluster)
            except CliError:
                node = -1
            if node in self.brokers or time.monotonic() > deadline:
                return node
            time.sleep(0.2)

    def _target(self, node: int, rng: random.Random, detail: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return (node, detail) if node in self.brokers else (self._random(rng), {**detail, "random": True})

    def leader(self, rng: random.Random, topic: str, partitions: int) -> tuple[int, dict[str, Any]]:
        partition = rng.randrange(partitions)
        node = self._ask(lambda cluster: cluster.leaders([topic])[topic].get(partition, -1))
        return self._target(node, rng, {"partition": f"{topic}-{partition}"})

    def controller(self, rng: random.Random) -> tuple[int, dict[str, Any]]:
        return self._target(self._ask(lambda cluster: int(cluster.metadata([]).controller_id)), rng, {})

    def coordinator(self, rng: random.Random, key: str, key_type: int) -> tuple[int, dict[str, Any]]:
        """The group (key_type 0) or transaction (1) coordinator of `key`."""

        def find(cluster: Cluster) -> int:
            resp: Any = cluster.bootstrap.call(
                FindCoordinatorRequest(key=key, key_type=key_type, coordinator_keys=[key]), 4
            )
            found = resp.coordinators[0] if resp.coordinators else resp
            return int(found.node_id) if found.error_code == ErrorCode.NONE else -1

        return self._target(self._ask(find), rng, {"key": key})

    def kill(self, node_id: int, rng: random.Random, start_timeout: float) -> None:
        broker = self.brokers[node_id]
        broker.kill()
        time.sleep(rng.uniform(*DOWN_SECONDS))
        self._start(node_id, start_timeout)

    def pause(self, node_id: int, rng: random.Random) -> None:
        broker = self.brokers[node_id]
        broker.pause()
        time.sleep(SESSION_TIMEOUT_MS / 1000 + rng.uniform(1.0, 3.0))
        broker.resume()

    def rolling_restart(self, start_timeout: float) -> list[int]:
        """Every broker in turn, as an operator upgrades them: SIGTERM, which hands its
        partitions over first (Kafka's controlled shutdown), then started again."""
        order = sorted(self.brokers)
        for node_id in order:
            broker = self.brokers[node_id]
            try:
                broker.stop(30)
            except RuntimeError:
                self.log(f"broker {node_id} ignored SIGTERM in the rolling restart")
            self._start(node_id, start_timeout)
        return order

    def ensure_up(self, stops: list[str], start_timeout: float) -> None:
        """A broker that stopped itself must have said why; it is started again."""
        for node_id, broker in self.brokers.items():
            if broker.alive:
                continue
            tail = broker.log_tail(40).splitlines()
            said = [line for line in tail if "[critical" in line or "[error" in line] or tail[-1:]
            last_words = f"broker {node_id}: {said[-1] if said else '(nothing)'}"
            stops.append(last_words)
            self.log(f"broker had stopped: {last_words}")
            broker.kill()
            self._start(node_id, start_timeout)

    def _start(self, node_id: int, start_timeout: float) -> None:
        """Started as a supervisor would: a broker that exits at start (PostgreSQL still
        recovering from a crash answers it too late: exit code 1, as documented) is started
        again, a few times."""
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self.brokers[node_id].start(start_timeout)
                return
            except RuntimeError as exc:
                if attempt == START_ATTEMPTS:
                    raise
                self.log(f"broker {node_id} did not start ({str(exc).splitlines()[0]}); starting it again")

    def heal(self) -> None:
        for broker in self.brokers.values():
            broker.resume()


def inject(
    fault: str,
    rng: random.Random,
    nodes: BrokerCluster,
    pg: Postgres,
    *,
    topic: str,
    partitions: int,
    txn_ids: list[str],
    group_ids: list[str],
    start_timeout: float,
) -> dict[str, Any]:
    """One fault of CLUSTER_FAULTS; returns what it hit."""
    if fault in ("pg-stop", "pg-crash"):
        pg_fault(pg, fault, rng)
        return {}
    if fault == "rolling-restart":
        return {"nodes": nodes.rolling_restart(start_timeout)}
    if fault in ("kill-leader", "pause-leader"):
        node, detail = nodes.leader(rng, topic, partitions)
    elif fault in ("kill-txn-coordinator", "pause-txn-coordinator"):
        node, detail = nodes.coordinator(rng, rng.choice(txn_ids), 1)
    elif fault in ("kill-group-coordinator", "pause-group-coordinator"):
        node, detail = nodes.coordinator(rng, rng.choice(group_ids), 0)
    elif fault == "kill-controller":
        node, detail = nodes.controller(rng)
    else:
        raise ValueError(f"{fault} is not a cluster fault")
    if fault.startswith("pause-"):
        nodes.pause(node, rng)
    else:
        nodes.kill(node, rng, start_timeout)
    return {"node": node, **detail}
