"""One run of the campaign: the broker on a lazyfs disk behind the proxy, the workload's
clients, the nemesis on a schedule drawn from the seed, then a drain and the checker."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from odradek.testing import OdradekBroker, free_port

from .checker import Report, check
from .client import share_group_id
from .cluster import CLUSTER_FAULTS, CLUSTER_OVERRIDES, BrokerCluster
from .cluster import inject as inject_cluster_fault
from .disks import Disk
from .history import read_history
from .postgres import Postgres, pg_fault
from .proxy import ADD_PARTITIONS_TO_TXN, END_TXN, PRODUCE, Proxy

ROOT = Path(__file__).resolve().parents[1]
# A restart on a disk that lost power replays the log before it listens again.
START_SECONDS = 60.0
FAULTS = ("kill", "power-loss", "pause", "partition", "delay", "hold", "disk-full", "io-error", "io-error+power-loss")
# With the log in PostgreSQL (`--engine postgres`): the broker's faults that concern it,
# and PostgreSQL's own: stopped cleanly, crashed (`pg_ctl stop -m immediate`), its data
# folder losing power (on a lazyfs disk of its own: what PostgreSQL did not fsync is gone),
# and its connections to the broker cut by a second proxy.
POSTGRES_FAULTS = ("kill", "pause", "partition", "delay", "hold", "pg-stop", "pg-crash", "pg-power-loss", "pg-cut")
ALL_FAULTS = tuple(dict.fromkeys(FAULTS + POSTGRES_FAULTS + CLUSTER_FAULTS))
DISK_FAULTS = ("power-loss", "disk-full", "io-error", "io-error+power-loss")
# A deliberately misconfigured PostgreSQL (synchronous_commit=off: COMMIT answered before
# its WAL is flushed), so that a test can show pg-power-loss catches what it loses.
PG_ASYNC_COMMIT = "pg-async-commit"
ENGINES = ("file", "postgres")
# The share-group workload (roles share-*) has a one-partition topic of its own: a producer
# fills it, two share consumers of one group read it, acknowledging explicitly.
CLIENTS = (
    ("txn", "t1"),
    ("txn", "t2"),
    ("idempotent", "i1"),
    ("assign", "a1"),
    ("group", "g1"),
    ("share-send", "p1"),
    ("share", "s1"),
    ("share", "s2"),
)
TOPIC = "faults"
PARTITIONS = 4
SHARE_TOPIC = "faults-share"
# IncrementalAlterConfigs (API 44): Kafka's ConfigResource.Type GROUP and AlterConfigOp SET.
INCREMENTAL_ALTER_CONFIGS = 44
GROUP_RESOURCE = 32
SET_OPERATION = 0
# The share group's acquisition lock: longer than a pause (6 s) so that most acknowledgements
# survive one, short enough that the share drain, which waits it out, ends soon.
SHARE_LOCK_MS = 8000
# Short timeouts so the campaign sees faults quickly; the rest is Kafka's defaults.
BROKER_OVERRIDES = {
    "offsets.topic.num.partitions": "4",
    "transaction.state.log.num.partitions": "4",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
    "group.initial.rebalance.delay.ms": "0",
    "share.coordinator.state.topic.num.partitions": "4",
    "group.share.min.record.lock.duration.ms": "1000",
    "group.share.record.lock.duration.ms": str(SHARE_LOCK_MS),
}


@dataclass
class Run:
    seed: int
    seconds: float
    faults: tuple[str, ...] = FAULTS
    workdir: Path = Path("faults-run")
    broken: str | None = None
    engine: str = "file"
    cluster: bool = False  # three brokers over PostgreSQL (faults/cluster.py)
    share: bool = True  # the share-group workload beside the others
    disk_mb: int = 48
    injected: list[dict[str, Any]] = field(default_factory=list)
    broker_stops: list[str] = field(default_factory=list)  # the broker's own last words
    fault_seconds: float = 0.0
    report: Report | None = None
    drained: bool = False

    def log(self, message: str) -> None:
        print(f"[faults {time.strftime('%H:%M:%S')}] {message}", flush=True)


def run(cfg: Run) -> Run:
    cfg.workdir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(cfg.seed)
    cfg.log(
        f"seed={cfg.seed} seconds={cfg.seconds} faults={','.join(cfg.faults)} broken={cfg.broken} "
        f"cluster={cfg.cluster} dir={cfg.workdir}"
    )
    if cfg.cluster:
        return _run_cluster(cfg, rng)
    # Without disk faults (always on PostgreSQL, where the broker's own directory holds only
    # its cluster id) no lazyfs, nor root and libfuse, is needed for the broker; PostgreSQL
    # gets a lazyfs disk of its own for pg-power-loss.
    disk = Disk(cfg.workdir, cfg.disk_mb) if set(cfg.faults) & set(DISK_FAULTS) else None
    log_dir = disk.mount if disk is not None else cfg.workdir / "broker-data"
    broker_port, proxy_port = free_port(), free_port()
    proxy = Proxy(proxy_port, broker_port, cfg.seed)
    overrides = dict(BROKER_OVERRIDES)
    pg: Postgres | None = None
    if cfg.engine == "postgres":
        pg = Postgres(cfg.seed, power_loss="pg-power-loss" in cfg.faults,
                      synchronous_commit=cfg.broken != PG_ASYNC_COMMIT)
        overrides["storage.engine"] = pg.url
    broken = None if cfg.broken == PG_ASYNC_COMMIT else cfg.broken
    broker = faults_broker(log_dir, cfg.workdir / "broker.log", broker_port, proxy_port, overrides, broken)
    try:
        if disk is not None:
            disk.setup()
        proxy.start()
        if pg is not None:
            pg.start()
        broker.start(START_SECONDS)
        _workload(cfg, f"127.0.0.1:{proxy_port}", lambda: _nemesis(cfg, rng, broker, disk, proxy, pg))
        if not broker.alive:
            cfg.broker_stops.append(broker.log_tail(1))
    finally:
        try:
            broker.stop(30)
        except RuntimeError:  # killed instead: the run is over either way
            cfg.log("the broker ignored SIGTERM")
        proxy.stop()
        if pg is not None:
            pg.stop()
        if disk is not None:
            disk.teardown()
    return cfg


def _run_cluster(cfg: Run, rng: random.Random) -> Run:
    """`--cluster`: three brokers over one PostgreSQL (faults/cluster.py), the clients
    bootstrapping from all of them, no proxy in front of them."""
    pg = Postgres(cfg.seed, power_loss="pg-power-loss" in cfg.faults,
                  synchronous_commit=cfg.broken != PG_ASYNC_COMMIT)
    overrides = {**BROKER_OVERRIDES, **CLUSTER_OVERRIDES, "storage.engine": pg.url}
    broken = None if cfg.broken == PG_ASYNC_COMMIT else cfg.broken
    nodes = BrokerCluster(cfg.workdir, overrides, broken, cfg.log, taken=(pg.server.port, pg.proxy.listen_port))
    txn_ids = [f"faults-{name}" for role, name in CLIENTS if role == "txn"]  # faults/client.py's
    group_ids = [f"faults-{TOPIC}"]

    def inject(fault: str) -> dict[str, Any]:
        if fault in CLUSTER_FAULTS:
            return inject_cluster_fault(fault, rng, nodes, pg, topic=TOPIC, partitions=PARTITIONS,
                                        txn_ids=txn_ids, group_ids=group_ids, start_timeout=START_SECONDS)
        if fault.startswith("pg-"):
            pg_fault(pg, fault, rng)
            return {}
        raise ValueError(f"{fault} is not a fault of the cluster mode")

    def heal() -> None:
        pg.proxy.heal()
        if not pg.server.running:
            pg.server.restart()
        nodes.heal()

    try:
        pg.start()
        cfg.log(f"PostgreSQL up: {pg.url}")
        nodes.start(START_SECONDS)
        cfg.log(f"PostgreSQL and {len(nodes.brokers)} brokers up: {nodes.bootstrap}")
        _workload(cfg, nodes.bootstrap, lambda: _schedule(
            cfg, rng, inject, lambda: nodes.ensure_up(cfg.broker_stops, START_SECONDS), heal
        ), share=cfg.share)
        for node_id, broker in nodes.brokers.items():
            if not broker.alive:
                cfg.broker_stops.append(f"broker {node_id}: {broker.log_tail(1)}")
    finally:
        nodes.stop()
        pg.stop()
    return cfg


def _workload(cfg: Run, bootstrap: str, nemesis: Callable[[], None], *, share: bool = True) -> None:
    """The topics, the clients under the nemesis, the drains, the checker's report; without
    `share`, no share-group workload."""
    clients: list[subprocess.Popen[bytes]] = []
    roles = [(role, name) for role, name in CLIENTS if share or not role.startswith("share")]
    histories = [cfg.workdir / f"{name}.jsonl" for _, name in roles]
    histories += [cfg.workdir / "drain.jsonl"] + ([cfg.workdir / "share-drain.jsonl"] if share else [])
    for path in histories:
        path.unlink(missing_ok=True)
    try:
        _create_topic(bootstrap, share)
        for role, name in roles:
            clients.append(_client(role, name, bootstrap, cfg.workdir, cfg.seconds, cfg.seed))
        nemesis()
        for client in clients:
            try:
                client.wait(cfg.seconds + 60)
            except subprocess.TimeoutExpired:
                client.kill()
                client.wait()
        # Transactions the clients left open are aborted by the coordinator after their
        # timeout (transaction.timeout.ms in faults/client.py); the drain reads up to the LSO.
        # The share drain waits out the acquisition lock of records whose ShareFetch answer
        # was lost.
        cfg.log("workload over; draining")
        drain = _client("drain", "drain", bootstrap, cfg.workdir, 90, cfg.seed)
        clients.append(drain)
        share_drain = _client("share-drain", "share-drain", bootstrap, cfg.workdir, 90, cfg.seed) if share else None
        if share_drain is not None:
            clients.append(share_drain)
        cfg.drained = drain.wait(150) == 0
        if share_drain is not None and share_drain.wait(150) != 0:
            cfg.drained = False
            cfg.log("the share drain did not run idle")
        if not cfg.drained:
            cfg.log("the drain did not reach the end of every key")
        cfg.report = check(read_history([p for p in histories if p.exists()]))
        cfg.log("drained and checked")
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()


def faults_broker(
    data_dir: Path,
    log_path: Path,
    port: int,
    advertised_port: int,
    overrides: dict[str, str],
    broken: str | None = None,
) -> OdradekBroker:
    """The broker under test, on `data_dir` for all its restarts; it gives clients
    `advertised_port` (the proxy's) and runs `faults.broken_broker`'s `broken` bug if named."""
    return OdradekBroker(
        data_dir,
        {**overrides, "advertised.listeners": f"PLAINTEXT://127.0.0.1:{advertised_port}"},
        port,
        entry=["-m", "faults.broken_broker", broken] if broken else ["-m", "broker"],
        log_path=log_path,
    )


def _create_topic(bootstrap: str, share: bool = True) -> None:
    """The topics, and (with `share`) the share group's configs: reading from the earliest offset."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [NewTopic(TOPIC, PARTITIONS, 1)] + ([NewTopic(SHARE_TOPIC, 1, 1)] if share else [])
    futures = admin.create_topics(topics, request_timeout=20)
    for future in futures.values():
        future.result(30)
    if not share:
        return
    # (its lock duration is the broker's group.share.record.lock.duration.ms: a group's own
    # may not go below 15 s)
    set_group_config_everywhere(bootstrap, share_group_id(SHARE_TOPIC), "share.auto.offset.reset", "earliest")


def set_group_config_everywhere(bootstrap: str, group: str, name: str, value: str) -> None:
    """IncrementalAlterConfigs of a GROUP on every broker of `bootstrap`: group configs are
    the cluster's (docs/cluster.md, "Shared metadata") and each broker applies its own change
    on commit, so on return the config is in force on every broker, where a share
    partition's leader reads the group's `share.auto.offset.reset`."""
    from odradek.wire import WireConnection, parse_host_port
    from protocol.messages.incremental_alter_configs_request import (
        AlterableConfig,
        AlterConfigsResource,
        IncrementalAlterConfigsRequest,
    )

    request = IncrementalAlterConfigsRequest(resources=[AlterConfigsResource(
        resource_type=GROUP_RESOURCE, resource_name=group,
        configs=[AlterableConfig(name=name, config_operation=SET_OPERATION, value=value)])])
    for server in bootstrap.split(","):
        with WireConnection(*parse_host_port(server), timeout=30) as c:
            answer = c.call(INCREMENTAL_ALTER_CONFIGS, 1, request)
        [resource] = answer.responses
        if resource.error_code != 0:
            raise RuntimeError(f"{server}: IncrementalAlterConfigs of group {group}: {resource.error_code}")


def _client(
    role: str, name: str, bootstrap: str, workdir: Path, seconds: float, seed: int
) -> subprocess.Popen[bytes]:
    args = [
        sys.executable,
        "-m",
        "faults.client",
        role,
        "--bootstrap",
        bootstrap,
        "--history",
        str(workdir / f"{name}.jsonl"),
    ]
    share = role.startswith("share")
    args += [
        "--process",
        name,
        "--topic",
        SHARE_TOPIC if share else TOPIC,
        "--partitions",
        str(1 if share else PARTITIONS),
        "--seconds",
        str(seconds),
        "--seed",
        str(seed),
        "--idle",
        str(SHARE_LOCK_MS / 1000 + 4),
    ]
    with open(workdir / f"{name}.log", "ab") as log:
        return subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _nemesis(
    cfg: Run, rng: random.Random, broker: OdradekBroker, disk: Disk | None, proxy: Proxy, pg: Postgres | None
) -> None:
    def heal() -> None:
        proxy.heal()
        if disk is not None:
            disk.free()
            disk.fail_io(False)
        if pg is not None:
            pg.proxy.heal()
            if not pg.server.running:
                pg.server.restart()
        broker.resume()

    _schedule(
        cfg, rng, lambda fault: _inject(fault, rng, broker, disk, proxy, pg), lambda: _ensure_up(cfg, broker), heal
    )


def _schedule(
    cfg: Run,
    rng: random.Random,
    inject: Callable[[str], dict[str, Any]],
    ensure_up: Callable[[], None],
    heal: Callable[[], None],
) -> None:
    """Faults one after another until the workload's end, each followed by a quiet spell in
    which the clients can make progress."""
    deadline = time.monotonic() + cfg.seconds - 2
    order = list(cfg.faults)
    rng.shuffle(order)  # every fault type once before any repeats
    while time.monotonic() + 3 < deadline:
        if not cfg.faults:
            time.sleep(deadline - time.monotonic())
            break
        fault = order.pop(0) if order else rng.choice(cfg.faults)
        time.sleep(rng.uniform(0.2, 0.8))
        started = time.monotonic()
        detail = inject(fault)
        took = time.monotonic() - started
        cfg.fault_seconds += took
        cfg.injected.append({"fault": fault, "seconds": round(took, 2), **detail})
        cfg.log(f"{fault} for {took:.1f}s {detail or ''}")
        ensure_up()
        time.sleep(rng.uniform(0.8, 1.5))
    heal()
    ensure_up()


def _inject(
    fault: str, rng: random.Random, broker: OdradekBroker, disk: Disk | None, proxy: Proxy, pg: Postgres | None = None
) -> dict[str, Any]:
    if fault.startswith("pg-"):
        if pg is None:
            raise ValueError(f"{fault} needs --engine postgres")
        pg_fault(pg, fault, rng)
        return {}
    if fault == "kill":
        broker.kill()
        time.sleep(rng.uniform(0.1, 1.0))
        broker.start(START_SECONDS)
    elif fault == "pause":  # longer than the clients' request timeout (3 s)
        broker.pause()
        time.sleep(rng.uniform(4.0, 6.0))
        broker.resume()
    elif fault == "partition":
        proxy.drop()
        time.sleep(rng.uniform(2.0, 4.0))
        proxy.heal()
    elif fault == "delay":
        seconds = rng.uniform(0.5, 2.0)
        proxy.delay(seconds)
        time.sleep(rng.uniform(3.0, 5.0))
        proxy.heal()
        return {"max_delay": round(seconds, 2)}
    elif fault == "hold":
        held = proxy.held
        api_keys = frozenset(rng.sample([PRODUCE, ADD_PARTITIONS_TO_TXN, END_TXN], rng.randint(1, 3)))
        proxy.hold_one(api_keys, rng.uniform(2.0, 5.0))
        deadline = time.monotonic() + 10
        while proxy.held == held and time.monotonic() < deadline:
            time.sleep(0.1)
        proxy.heal()
        return {"api_keys": sorted(api_keys), "delivered_late": proxy.held - held}
    elif disk is None:
        raise ValueError(f"{fault} needs the file engine's disk")
    elif fault == "power-loss":
        broker.kill()
        disk.power_loss()
        broker.start(START_SECONDS)
    elif fault == "disk-full":
        written = disk.fill()
        time.sleep(rng.uniform(2.0, 4.0))
        disk.free()
        return {"ballast_mb": written >> 20}
    elif fault == "io-error+power-loss":  # the power goes while fsync is failing
        disk.fail_io(True)
        time.sleep(rng.uniform(0.5, 2.0))
        broker.kill()
        disk.fail_io(False)
        disk.power_loss()
        broker.start(START_SECONDS)
    elif fault == "io-error":
        disk.fail_io(True)
        time.sleep(rng.uniform(1.0, 3.0))
        disk.fail_io(False)
    else:
        raise ValueError(f"unknown fault {fault!r}")
    return {}


def _ensure_up(cfg: Run, broker: OdradekBroker) -> None:
    """A broker that stopped itself (a disk fault) must have said why; it is started again
    on the same directory, where it must find every acknowledged record."""
    if broker.alive:
        return
    tail = broker.log_tail(40).splitlines()
    said = [line for line in tail if "[critical" in line or "[error" in line] or tail[-1:]
    last_words = said[-1] if said else "(nothing)"
    cfg.broker_stops.append(last_words)
    cfg.log(f"broker had stopped: {last_words}")
    broker.kill()
    broker.start(START_SECONDS)


def summary(runs: list[Run]) -> dict[str, Any]:
    families: dict[str, int] = {}
    for r in runs:
        assert r.report is not None
        for name, count in r.report.counts.items():
            families[name] = families.get(name, 0) + count
    return {
        "runs": len(runs),
        "seeds": [r.seed for r in runs],
        "operations": sum(sum(r.report.ops.values()) for r in runs if r.report),
        "acknowledged": sum(r.report.acknowledged for r in runs if r.report),
        "faults": len([f for r in runs for f in r.injected]),
        "fault_seconds": round(sum(r.fault_seconds for r in runs), 1),
        "broker_stops": sum(len(r.broker_stops) for r in runs),
        "anomalies": families,
        "worst_lag_s": round(max((r.report.worst_lag for r in runs if r.report), default=0.0), 2),
        "drained": all(r.drained for r in runs),
    }


def print_report(r: Run) -> None:
    assert r.report is not None
    counts: dict[str, int] = {}
    for f in r.injected:
        counts[f["fault"]] = counts.get(f["fault"], 0) + 1
    print(f"\nseed {r.seed}: operations {dict(sorted(r.report.ops.items()))}")
    print(
        f"faults injected ({r.fault_seconds:.1f}s in all): {counts}; broker stopped itself {len(r.broker_stops)} time(s)"
    )
    print(
        f"acknowledged {r.report.acknowledged}, values read {r.report.read_values}, worst end-to-end lag {r.report.worst_lag:.2f}s"
    )
    print(r.report.table())
    for name, examples in r.report.anomalies.items():
        for example in examples[:3]:
            print(f"  {name}: {json.dumps(example)}")
