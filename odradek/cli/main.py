"""The admin commands' arguments, and running one: its output on stdout, one line on stderr
and exit code 1 on failure (Kafka's tools' conventions)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import NoReturn

from odradek import __version__
from odradek.cli import cluster as cluster_cmd
from odradek.cli import groups, health, quotas, records, tool_parsers, topics, transactions
from odradek.cli.client import CliError, Cluster
from odradek.cli.output import render
from odradek.client_config import (
    ClientConfigError,
    ClientSecurity,
    client_security,
    env_properties,
    read_properties,
)

BOOTSTRAP_ENV = "ODRADEK_BOOTSTRAP_SERVER"
DEFAULT_BOOTSTRAP = "127.0.0.1:9092"
DEFAULT_TIMEOUT = 10.0

def _topics(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("topics", help="list, create, describe, change and delete topics")
    s = p.add_subparsers(dest="action", required=True)
    c = s.add_parser("list", help="topic names")
    c.add_argument("--exclude-internal", action="store_true")
    c.set_defaults(run=lambda cl, a: topics.list_topics(cl, a.exclude_internal))
    c = s.add_parser("create", help="create a topic")
    c.add_argument("topic")
    c.add_argument("--partitions", type=int, default=-1, help="default: the broker's num.partitions")
    c.add_argument("--replication-factor", type=int, default=-1)
    c.add_argument("--config", action="append", default=[], metavar="NAME=VALUE")
    c.add_argument("--if-not-exists", action="store_true")
    c.set_defaults(run=lambda cl, a: topics.create(
        cl, a.topic, a.partitions, a.replication_factor, a.config, a.if_not_exists))
    c = s.add_parser("describe", help="partitions, leaders and the topic's own configs")
    c.add_argument("topic", nargs="*")
    c.set_defaults(run=lambda cl, a: topics.describe(cl, a.topic))
    c = s.add_parser("alter-config", help="set or delete topic configs")
    c.add_argument("topic")
    c.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    c.add_argument("--delete", action="append", default=[], metavar="NAME")
    c.set_defaults(run=lambda cl, a: topics.alter_config(cl, a.topic, a.set, a.delete))
    c = s.add_parser("add-partitions", help="raise a topic's partition count")
    c.add_argument("topic")
    c.add_argument("--partitions", type=int, required=True, help="the new total")
    c.set_defaults(run=lambda cl, a: topics.add_partitions(cl, a.topic, a.partitions))
    c = s.add_parser("delete", help="delete topics")
    c.add_argument("topic", nargs="+")
    c.add_argument("--if-exists", action="store_true")
    c.set_defaults(run=lambda cl, a: topics.delete(cl, a.topic, a.if_exists))


def _quotas(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quotas", help="client quotas by user and client id (KIP-55), connection rates by ip (KIP-612)")
    s = p.add_subparsers(dest="action", required=True)
    for action in ("describe", "alter"):
        c = s.add_parser(action, help="show quotas" if action == "describe" else "set or delete quotas")
        c.add_argument("--user", metavar="NAME", help="a user, or <default>")
        c.add_argument("--client-id", metavar="ID", help="a client id, or <default>")
        c.add_argument("--ip", metavar="ADDRESS", help="a client address, or <default>")
        if action == "describe":
            c.set_defaults(run=lambda cl, a: quotas.describe(cl, a.user, a.client_id, a.ip))
        else:
            c.add_argument("--add-config", action="append", default=[], metavar="KEY=VALUE",
                           help="producer_byte_rate, consumer_byte_rate, request_percentage, "
                                "connection_creation_rate (--ip), ...")
            c.add_argument("--delete-config", action="append", default=[], metavar="KEY")
            c.set_defaults(
                run=lambda cl, a: quotas.alter(cl, a.user, a.client_id, a.add_config, a.delete_config, a.ip)
            )


def _groups(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("groups", help="consumer and share groups")
    s = p.add_subparsers(dest="action", required=True)
    s.add_parser("list").set_defaults(run=lambda cl, a: groups.list_groups(cl))
    c = s.add_parser("describe", help="state, members, committed offsets and lag")
    c.add_argument("group")
    c.set_defaults(run=lambda cl, a: groups.describe(cl, a.group))
    c = s.add_parser("delete", help="delete groups without members")
    c.add_argument("group", nargs="+")
    c.set_defaults(run=lambda cl, a: groups.delete(cl, a.group))
    c = s.add_parser("reset-offsets", help="plan (or, with --execute, commit) new offsets for a group")
    c.add_argument("group")
    c.add_argument("--topic", action="append", default=[], metavar="TOPIC[:P,P]")
    c.add_argument("--all-topics", action="store_true", help="every topic the group has offsets for")
    target = c.add_mutually_exclusive_group(required=True)
    target.add_argument("--to-earliest", action="store_const", dest="to", const=("earliest", None))
    target.add_argument("--to-latest", action="store_const", dest="to", const=("latest", None))
    target.add_argument("--to-datetime", type=lambda v: ("datetime", v), dest="to", metavar="ISO-8601")
    target.add_argument("--to-offset", type=lambda v: ("offset", v), dest="to", metavar="OFFSET")
    mode = c.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="show the plan only (the default)")
    mode.add_argument("--execute", action="store_true", help="commit the new offsets")
    c.add_argument("--share", action="store_true", help="a share group: reset its start offsets (KIP-932)")
    c.set_defaults(run=lambda cl, a: groups.reset_offsets(
        cl, a.group, topics=a.topic, all_topics=a.all_topics, to=a.to[0], value=a.to[1], execute=a.execute,
        share=a.share))


def _transactions(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("transactions", help="transactions (KIP-664)")
    s = p.add_subparsers(dest="action", required=True)
    s.add_parser("list").set_defaults(run=lambda cl, a: transactions.list_transactions(cl))
    c = s.add_parser("describe")
    c.add_argument("--transactional-id", required=True)
    c.set_defaults(run=lambda cl, a: transactions.describe(cl, a.transactional_id))
    c = s.add_parser("find-hanging", help="transactions open at partitions that their coordinator will not end")
    c.add_argument("--topic")
    c.add_argument("--partition", type=int)
    c.add_argument("--broker-id", type=int)
    c.add_argument("--max-transaction-timeout", type=int, default=15, metavar="MINUTES",
                   help="ignore transactions younger than this (default 15, Kafka's transaction.max.timeout.ms)")
    c.set_defaults(run=lambda cl, a: transactions.find_hanging(
        cl, a.topic, a.partition, a.broker_id, a.max_transaction_timeout))
    c = s.add_parser("abort", help="write an abort marker for a hanging transaction")
    c.add_argument("--topic", required=True)
    c.add_argument("--partition", type=int, required=True)
    c.add_argument("--start-offset", type=int)
    c.add_argument("--producer-id", type=int)
    c.add_argument("--producer-epoch", type=int)
    c.add_argument("--coordinator-epoch", type=int)
    c.set_defaults(run=lambda cl, a: transactions.abort(
        cl, a.topic, a.partition, a.start_offset, a.producer_id, a.producer_epoch, a.coordinator_epoch))


def _data(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("producers", help="active producers of partitions")
    s = p.add_subparsers(dest="action", required=True)
    c = s.add_parser("describe")
    c.add_argument("--topic", required=True)
    c.add_argument("--partition", type=int)
    c.set_defaults(run=lambda cl, a: transactions.describe_producers(cl, a.topic, a.partition))

    p = sub.add_parser("records", help="delete records")
    s = p.add_subparsers(dest="action", required=True)
    c = s.add_parser("delete-before", help="move the log start offset up to --offset")
    c.add_argument("--topic", required=True)
    c.add_argument("--partition", type=int, help="default: every partition")
    c.add_argument("--offset", type=int, required=True, help="-1 for the high watermark")
    c.set_defaults(run=lambda cl, a: records.delete_before(cl, a.topic, a.partition, a.offset))

    c = sub.add_parser("produce", help="produce records (values from --value or standard input lines)")
    c.add_argument("topic")
    c.add_argument("--partition", type=int, help="default: the key's partition (Kafka's partitioner), else 0")
    c.add_argument("--key")
    c.add_argument("--value", action="append", default=[])
    c.add_argument("--header", action="append", default=[], metavar="NAME=VALUE")
    c.set_defaults(run=lambda cl, a: records.produce(
        cl, a.topic, a.partition, a.value or [line.rstrip("\n") for line in sys.stdin], a.key, a.header))

    c = sub.add_parser("consume", help="print records of a topic")
    c.add_argument("topic")
    c.add_argument("--partition", type=int, help="default: every partition")
    start = c.add_mutually_exclusive_group()
    start.add_argument("--from-beginning", action="store_true")
    start.add_argument("--offset", type=int)
    c.add_argument("--max-messages", type=int)
    c.add_argument("--isolation", choices=["read_uncommitted", "read_committed"], default="read_uncommitted")
    c.add_argument("--timeout-ms", type=int, default=2000, help="stop after this long without a record")
    c.set_defaults(run=lambda cl, a: records.consume(
        cl, a.topic, a.partition, from_beginning=a.from_beginning, offset=a.offset, max_messages=a.max_messages,
        committed=a.isolation == "read_committed", timeout_ms=a.timeout_ms))

    p = sub.add_parser("cluster", help="the cluster: brokers, controller, leaders per broker")
    s = p.add_subparsers(dest="action", required=True)
    s.add_parser("describe", help="brokers (id, address, rack), the controller and each broker's partition "
                                  "leader count").set_defaults(run=lambda cl, a: cluster_cmd.describe(cl))

    c = sub.add_parser("health", help="an ApiVersions round trip and the cluster's metadata")
    c.set_defaults(run=lambda cl, a: health.health(cl, a.started))


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line on stderr and exit with 1, as every other error (argparse's
    own print the usage first and exit with 2); `--help` shows the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(1, f"{self.prog}: error: {message}\n")


def _global_options(p: argparse.ArgumentParser, broker_list: bool = True, timeout: bool = True) -> None:
    """The options every command takes, before or after its name (as Kafka's tools take
    options in any order). SUPPRESS as the default: a subcommand's parser copies what it
    parsed over its parent's values, so a default there would undo a value given earlier;
    the defaults are filled in after parsing (`_fill_defaults`)."""
    g = p.add_argument_group("connection and output (before or after the command)")
    names = ["--bootstrap-server", "--bootstrap-servers", *(["--broker-list"] if broker_list else [])]
    g.add_argument(*names, dest="bootstrap_server",
                   default=argparse.SUPPRESS, metavar="HOST:PORT[,HOST:PORT]",
                   help=f"the brokers to start from (default: ${BOOTSTRAP_ENV} or {DEFAULT_BOOTSTRAP})")
    g.add_argument("--command-config", default=argparse.SUPPRESS, metavar="FILE",
                   help="Kafka client properties: security.protocol, ssl.*, sasl.* (docs/cli.md)")
    g.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    if timeout:
        g.add_argument("--timeout", type=float, default=argparse.SUPPRESS, metavar="SECONDS",
                       help=f"socket timeout in seconds (default {DEFAULT_TIMEOUT:g})")


def _every_parser(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [p]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += _every_parser(child)
    return found


def _fill_defaults(args: argparse.Namespace) -> argparse.Namespace:
    defaults = {
        "bootstrap_server": os.environ.get(BOOTSTRAP_ENV, DEFAULT_BOOTSTRAP),
        "command_config": None,
        "json": False,
        "timeout": DEFAULT_TIMEOUT,
    }
    for name, value in defaults.items():
        if not hasattr(args, name):
            setattr(args, name, value)
    return args


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="odradek",
        description="odradek: `odradek serve` runs the broker; the other commands administer any "
                    "Kafka-compatible cluster over the wire protocol.",
    )
    p.add_argument("--version", action="version", version=f"odradek {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # Listed for the help only: the umbrella command (odradek/__main__.py) runs the broker.
    sub.add_parser("serve", help="run the broker (its flags: odradek serve --help)").set_defaults(run=None)
    _topics(sub)
    _groups(sub)
    _transactions(sub)
    _quotas(sub)
    for add in (tool_parsers.acls_parser, tool_parsers.configs_parser, tool_parsers.features_parser,
                tool_parsers.offsets_and_dirs_parser, tool_parsers.dump_log_parser, tool_parsers.perf_parser,
                tool_parsers.placement_parser):
        add(sub)
    _data(sub)
    for each in _every_parser(p):
        if each.prog != "odradek serve":
            # Kafka's tools give these two names other meanings there (broker ids; milliseconds).
            _global_options(each, broker_list=each.prog not in ("odradek log-dirs describe",
                                                                "odradek reassign-partitions"),
                            timeout=each.prog != "odradek perf consume")
    return p


def _security(command_config: str | None) -> ClientSecurity:
    """The `ODRADEK_*` variables' client properties, overridden by the --command-config file's."""
    props = env_properties()
    if command_config is not None:
        props.update(read_properties(command_config))
    return client_security(props)


def _main(argv: list[str] | None) -> int:
    args = _fill_defaults(parser().parse_args(argv))
    if args.run is None:
        print("Error: run the broker with `odradek serve` or `python -m broker`", file=sys.stderr)
        return 1
    args.started = time.monotonic()
    try:
        security = _security(args.command_config)
    except ClientConfigError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    try:
        if getattr(args, "offline", False):
            output = args.run(None, args)
        else:
            with Cluster(args.bootstrap_server, args.timeout, security) as cluster:
                output = args.run(cluster, args)
    except CliError as exc:
        if exc.output is not None:
            text = render(exc.output, args.json)
            if text:
                print(text)
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(f"Error: no answer from {args.bootstrap_server} in {args.timeout}s", file=sys.stderr)
        return 1
    text = render(output, args.json)
    if text:
        print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Kafka's tools do under a closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
