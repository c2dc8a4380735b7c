"""The arguments of the commands that replace Kafka's other scripts (kafka-acls.sh,
kafka-configs.sh, kafka-features.sh, kafka-get-offsets.sh, kafka-log-dirs.sh,
kafka-dump-log.sh, the perf tests, kafka-leader-election.sh, kafka-reassign-partitions.sh),
each under the name and with the options of the script; odradek/cli/main.py adds them to the
command tree."""

from __future__ import annotations

import argparse
import random

from odradek.cli import (
    acls,
    configs,
    dump_log,
    features,
    get_offsets,
    leader_election,
    log_dirs,
    perf_consume,
    perf_produce,
    reassign_partitions,
)
from odradek.cli.client import CliError, Cluster
from odradek.cli.output import Output


def _acl_options(a: argparse.Namespace) -> acls.AclOptions:
    return acls.AclOptions(
        allow_principals=a.allow_principal, deny_principals=a.deny_principal, principals=a.principal,
        allow_hosts=a.allow_host, deny_hosts=a.deny_host, operations=a.operation, topics=a.topic, groups=a.group,
        cluster=a.cluster, transactional_ids=a.transactional_id, delegation_tokens=a.delegation_token,
        user_principals=a.user_principal, pattern_type=a.resource_pattern_type.upper(), producer=a.producer,
        consumer=a.consumer, idempotent=a.idempotent, force=a.force)


def _run_acls(cl: Cluster, a: argparse.Namespace) -> Output:
    opts = _acl_options(a)
    if a.add:
        return acls.add(cl, opts)
    if a.remove:
        return acls.remove(cl, opts)
    return acls.list_acls(cl, opts)


def acls_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("acls", help="add, remove and list ACLs (kafka-acls.sh)")
    action = c.add_mutually_exclusive_group(required=True)
    action.add_argument("--add", action="store_true", help="add ACLs")
    action.add_argument("--remove", action="store_true", help="remove ACLs (asks first, unless --force)")
    action.add_argument("--list", action="store_true", help="list ACLs (of the resources named, else all)")
    for flag, help_text in (("--allow-principal", "principalType:name to allow, e.g. User:alice or User:*"),
                            ("--deny-principal", "principalType:name to deny"),
                            ("--principal", "with --list: only this principal's ACLs"),
                            ("--allow-host", "a host the allowed principals may come from (default *)"),
                            ("--deny-host", "a host the denied principals are denied from (default *)"),
                            ("--operation", f"one of {', '.join(o for o in acls.OPERATIONS if o != 'ANY')} "
                                            "(default All)"),
                            ("--topic", "a topic (or prefix with --resource-pattern-type prefixed; * for all)"),
                            ("--group", "a consumer group"),
                            ("--transactional-id", "a transactional id"),
                            ("--delegation-token", "a delegation token id"),
                            ("--user-principal", "a user principal (tokens created for it)")):
        c.add_argument(flag, action="append", default=[], help=help_text)
    c.add_argument("--cluster", action="store_true", help="the cluster resource")
    c.add_argument("--resource-pattern-type", default="literal", type=str.lower,
                   choices=["any", "match", "literal", "prefixed"],
                   help="literal or prefixed for --add; any or match also filter --list and --remove")
    c.add_argument("--producer", action="store_true", help="WRITE, DESCRIBE and CREATE on --topic "
                                                           "(WRITE and DESCRIBE on --transactional-id)")
    c.add_argument("--idempotent", action="store_true", help="with --producer: IDEMPOTENT_WRITE on the cluster")
    c.add_argument("--consumer", action="store_true", help="READ and DESCRIBE on --topic, READ on --group")
    c.add_argument("--force", action="store_true", help="remove without asking")
    c.set_defaults(run=_run_acls)


class _Entity(argparse.Action):
    """--entity-name / --entity-default, and the shortcuts (--topic NAME, --broker-defaults, ...)
    that name a type and an entity at once, kept in the order given (Kafka pairs them so)."""

    def __init__(self, *args: object, entity_type: str | None = None, default_entity: bool = False,
                 **kwargs: object) -> None:
        self.entity_type, self.default_entity = entity_type, default_entity
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        if self.entity_type is not None:
            namespace.entity_type = [*namespace.entity_type, self.entity_type]
        name = None if self.default_entity else str(values)
        namespace.entity_names = [*namespace.entity_names, name]


def configs_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("configs", help="describe and alter configs of topics, brokers, groups, clients, users "
                                       "and ips, and SCRAM credentials (kafka-configs.sh)")
    action = c.add_mutually_exclusive_group(required=True)
    action.add_argument("--describe", action="store_true")
    action.add_argument("--alter", action="store_true")
    c.add_argument("--entity-type", action="append", default=[], choices=configs.ENTITY_TYPES)
    c.set_defaults(entity_names=[])
    c.add_argument("--entity-name", action=_Entity, metavar="NAME", help="a topic, broker id, group, client id, "
                                                                          "user or ip")
    c.add_argument("--entity-default", action=_Entity, nargs=0, default_entity=True,
                   help="the default broker, client id, user or ip")
    for flag, kind in (("--topic", "topics"), ("--broker", "brokers"), ("--group", "groups"),
                       ("--client", "clients"), ("--user", "users"), ("--ip", "ips")):
        c.add_argument(flag, action=_Entity, entity_type=kind, metavar="NAME",
                       help=f"the same as --entity-type {kind} --entity-name NAME")
    c.add_argument("--broker-defaults", action=_Entity, nargs=0, entity_type="brokers", default_entity=True,
                   help="the same as --entity-type brokers --entity-default")
    c.add_argument("--all", action="store_true", help="with --describe: every config, not only those set")
    c.add_argument("--add-config", action="append", default=[], metavar="K=V,K2=[V1,V2]",
                   help="configs to set; for users SCRAM-SHA-256=[iterations=8192,password=SECRET]")
    c.add_argument("--add-config-file", metavar="FILE", help="a properties file of configs to set")
    c.add_argument("--delete-config", action="append", default=[], metavar="K,K2")

    def run(cl: Cluster, a: argparse.Namespace) -> Output:
        found = configs.entities(a.entity_type, a.entity_names)
        if a.describe:
            return configs.describe(cl, found, a.all)
        return configs.alter(cl, found, configs.parse_add_config(a.add_config, a.add_config_file),
                             configs.parse_delete_config(a.delete_config))

    c.set_defaults(run=run)


def features_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("features", help="describe, upgrade, downgrade and disable feature levels (kafka-features.sh)")
    s = p.add_subparsers(dest="action", required=True)
    s.add_parser("describe", help="supported and finalized levels").set_defaults(
        run=lambda cl, a: features.describe(cl))
    for action, help_text in (("upgrade", "raise feature levels"), ("downgrade", "lower feature levels"),
                              ("disable", "lower features to level 0")):
        c = s.add_parser(action, help=help_text)
        c.add_argument("--feature", action="append", default=[],
                       metavar="NAME" if action == "disable" else "NAME=LEVEL",
                       help="e.g. transaction.version" + ("" if action == "disable" else "=2"))
        c.add_argument("--dry-run", action="store_true", help="validate only")
        if action != "upgrade":
            c.add_argument("--unsafe", action="store_true", help="allow a downgrade that may lose metadata")
        c.set_defaults(run=lambda cl, a: features.update(
            cl, a.action,
            {n: 0 for n in a.feature} if a.action == "disable" else features.parse_features(a.feature),
            a.dry_run, getattr(a, "unsafe", False)))


def offsets_and_dirs_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("get-offsets", help="partition offsets for a time: topic:partition:offset (kafka-get-offsets.sh)")
    c.add_argument("--topic", help="a regular expression of topic names (default: every topic)")
    c.add_argument("--partitions", metavar="N,N-M,N-,-M", help="partition ids (M excluded; default: all)")
    c.add_argument("--topic-partitions", metavar="REGEX:N-M,...", help="topic patterns with their partitions")
    c.add_argument("--time", default="latest",
                   help="-1 or latest (default), -2 or earliest, -3 or max-timestamp, -4 or earliest-local, "
                        "-5 or latest-tiered, or a timestamp in milliseconds")
    c.add_argument("--exclude-internal-topics", action="store_true")
    c.set_defaults(run=lambda cl, a: get_offsets.get_offsets(
        cl, a.topic, a.partitions, a.topic_partitions, a.time, a.exclude_internal_topics))

    p = sub.add_parser("log-dirs", help="brokers' log directories and their partitions (kafka-log-dirs.sh)")
    s = p.add_subparsers(dest="action", required=True)
    c = s.add_parser("describe", help="sizes and lags of the partitions in each log directory")
    # Here, as in kafka-log-dirs.sh, --broker-list names broker ids (not the bootstrap servers).
    c.add_argument("--broker-list", metavar="ID,ID", help="the brokers to ask (default: every broker)")
    c.add_argument("--topic-list", metavar="TOPIC,TOPIC", help="only these topics (default: every topic)")
    c.set_defaults(run=lambda cl, a: log_dirs.describe(cl, a.broker_list, a.topic_list))


def dump_log_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("dump-log", help="decode log segments, indexes and producer snapshots offline "
                                        "(kafka-dump-log.sh)")
    c.add_argument("--files", action="append", required=True, metavar="FILE[,FILE]",
                   help=".log, .index, .timeindex, .txnindex or .snapshot files of a partition directory")
    c.add_argument("--deep-iteration", action="store_true", help="every record, not only the batches")
    c.add_argument("--print-data-log", action="store_true", help="the records' keys and values (implies "
                                                                 "--deep-iteration)")
    decoder = c.add_mutually_exclusive_group()
    decoder.add_argument("--offsets-decoder", action="store_true", help="decode __consumer_offsets records")
    decoder.add_argument("--transaction-log-decoder", action="store_true", help="decode __transaction_state records")
    c.add_argument("--max-bytes", type=int, default=dump_log.MAX_BYTES, help="stop after batches this far in")
    c.add_argument("--skip-record-metadata", action="store_true", help="only the keys and values of records")
    # Offline: no connection to a broker.
    c.set_defaults(offline=True, run=lambda cl, a: dump_log.dump(
        a.files, deep=a.deep_iteration, print_data=a.print_data_log, offsets_decoder=a.offsets_decoder,
        transaction_log_decoder=a.transaction_log_decoder, max_bytes=a.max_bytes,
        skip_metadata=a.skip_record_metadata, emit=None if a.json else print))


def perf_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("perf", help="producer and consumer throughput and latency "
                                    "(kafka-producer-perf-test.sh, kafka-consumer-perf-test.sh)")
    s = p.add_subparsers(dest="action", required=True)
    c = s.add_parser("produce", help="produce --num-records records and report records/s, MB/s and latency")
    c.add_argument("--topic", required=True)
    c.add_argument("--num-records", type=int, required=True)
    size = c.add_mutually_exclusive_group(required=True)
    size.add_argument("--record-size", type=int, help="bytes per record")
    size.add_argument("--payload-file", help="records drawn at random from this file's lines")
    c.add_argument("--payload-delimiter", default="\n", help="what separates --payload-file's records")
    c.add_argument("--throughput", type=float, required=True, help="records/s at most; -1 for no limit")
    c.add_argument("--producer-props", nargs="+", default=[], metavar="KEY=VALUE",
                   help="acks, batch.size, linger.ms, compression.type, transaction.timeout.ms, "
                        "bootstrap.servers")
    c.add_argument("--producer.config", dest="command_config", default=argparse.SUPPRESS, metavar="FILE",
                   help="the same as --command-config")
    c.add_argument("--transactional-id", help="produce in transactions of this transactional id")
    c.add_argument("--transaction-duration-ms", type=int, metavar="MS",
                   help="commit a transaction this often (default 3000)")
    c.set_defaults(run=lambda cl, a: perf_produce.produce(
        cl, a.topic, a.num_records, a.record_size, a.throughput, a.producer_props, payload_file=a.payload_file,
        payload_delimiter=a.payload_delimiter, report=None if a.json else print, transactional_id=a.transactional_id,
        transaction_duration_ms=a.transaction_duration_ms))

    c = s.add_parser("consume", help="consume --messages records and report MB/s and records/s")
    c.add_argument("--topic", required=True)
    c.add_argument("--messages", type=int, required=True)
    c.add_argument("--group", default=f"perf-consumer-{random.randrange(100_000)}")
    c.add_argument("--from-latest", action="store_true", help="start at the end when the group has no offsets")
    # Here, as in kafka-consumer-perf-test.sh, --timeout is in milliseconds between records.
    c.add_argument("--timeout", dest="timeout_ms", type=int, default=10_000, metavar="MS",
                   help="stop after this long without a record (default 10000)")
    c.add_argument("--fetch-size", type=int, default=1024 * 1024, help="bytes per partition per fetch")
    c.add_argument("--hide-header", action="store_true")
    c.add_argument("--show-detailed-stats", action="store_true", help="a line per --reporting-interval")
    c.add_argument("--reporting-interval", type=int, default=5000, metavar="MS")
    c.add_argument("--consumer.config", dest="command_config", default=argparse.SUPPRESS, metavar="FILE",
                   help="the same as --command-config")
    c.set_defaults(run=lambda cl, a: perf_consume.consume(
        cl, a.topic, a.messages, a.group, from_latest=a.from_latest, timeout_ms=a.timeout_ms,
        fetch_size=a.fetch_size, hide_header=a.hide_header,
        detailed_interval_ms=a.reporting_interval if a.show_detailed_stats else None,
        report=None if a.json else print))


def placement_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("leader-election", help="elect preferred or unclean leaders (kafka-leader-election.sh)")
    c.add_argument("--election-type", required=True, metavar="PREFERRED|UNCLEAN")
    c.add_argument("--topic")
    c.add_argument("--partition", type=int)
    c.add_argument("--all-topic-partitions", action="store_true")
    c.add_argument("--path-to-json-file", metavar="FILE", help='{"partitions": [{"topic": "t", "partition": 0}]}')
    c.set_defaults(run=lambda cl, a: leader_election.elect(
        cl, a.election_type, a.topic, a.partition, a.all_topic_partitions, a.path_to_json_file))

    c = sub.add_parser("reassign-partitions", help="move partition replicas between brokers "
                                                   "(kafka-reassign-partitions.sh)")
    action = c.add_mutually_exclusive_group(required=True)
    for flag in ("--generate", "--execute", "--verify", "--list", "--cancel"):
        action.add_argument(flag, action="store_true")
    c.add_argument("--reassignment-json-file", metavar="FILE", help="for --execute, --verify and --cancel")
    c.add_argument("--topics-to-move-json-file", metavar="FILE", help='for --generate: {"topics": [{"topic": "t"}]}')
    # Here, as in kafka-reassign-partitions.sh, --broker-list names broker ids.
    c.add_argument("--broker-list", metavar="ID,ID", help="for --generate: the brokers to spread over")
    c.add_argument("--preserve-throttles", action="store_true",
                   help="with --verify and --cancel: leave the replication throttles in place")

    def run(cl: Cluster, a: argparse.Namespace) -> Output:
        if a.list:
            return reassign_partitions.list_reassignments(cl)
        if a.generate:
            if not a.topics_to_move_json_file or not a.broker_list:
                raise CliError("--generate needs --topics-to-move-json-file and --broker-list")
            return reassign_partitions.generate(cl, a.topics_to_move_json_file, a.broker_list)
        if not a.reassignment_json_file:
            raise CliError("--reassignment-json-file is required with --execute, --verify and --cancel")
        if a.execute:
            return reassign_partitions.execute(cl, a.reassignment_json_file)
        if a.verify:
            return reassign_partitions.verify(cl, a.reassignment_json_file, a.preserve_throttles)
        return reassign_partitions.cancel(cl, a.reassignment_json_file, a.preserve_throttles)

    c.set_defaults(run=run)
