"""`python -m broker`: run the broker."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from broker.config import Config, ConfigError
from broker.cpu_affinity import parse_cpus, pin_process
from broker.logging import configure_logging
from broker.server import Server
from broker.storage_setup import StorageUnavailableError


def parse_args(argv: list[str] | None) -> tuple[Path | None, dict[str, str]]:
    parser = argparse.ArgumentParser(prog="odradek", description="A Kafka-compatible message broker.")
    parser.add_argument("config", nargs="?", type=Path, help="a Kafka-style .properties file")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE", help="set any property")
    parser.add_argument("--listeners", help="listeners, e.g. PLAINTEXT://127.0.0.1:9092")
    parser.add_argument("--advertised-listeners", help="addresses given to clients")
    parser.add_argument("--log-dirs", help="the data directory")
    parser.add_argument("--storage-engine", help="`file` or a postgresql:// URL")
    parser.add_argument("--node-id", help="this broker's id")
    parser.add_argument("--log-format", choices=["console", "json"], help="log line format")
    args = parser.parse_args(argv)
    cli: dict[str, str] = {}
    for flag, name in [
        ("listeners", "listeners"),
        ("advertised_listeners", "advertised.listeners"),
        ("log_dirs", "log.dirs"),
        ("storage_engine", "storage.engine"),
        ("node_id", "node.id"),
        ("log_format", "log.format"),
    ]:
        value = getattr(args, flag)
        if value is not None:
            cli[name] = value
    for item in args.override:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--override needs KEY=VALUE, got {item!r}")
        cli[key.strip()] = value.strip()
    return args.config, cli


# How long a thread that wants the GIL waits before the holder is asked to drop it
# (CPython's default is 5 ms). The fsync threads (storage.flusher) take it twice a round,
# after their wake-up and after fdatasync, and the event loop takes it back each time it
# returns from epoll: at 5 ms, a small durable append beside a loop busy with megabyte
# Produce frames waited for these handoffs longer than for its fsync.
GIL_SWITCH_INTERVAL = 0.0005


def main(argv: list[str] | None = None) -> int:
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    properties, cli = parse_args(argv)
    try:
        config = Config.load(properties, cli=cli)
    except ConfigError as exc:
        print(f"odradek: {exc}", file=sys.stderr)
        return 2
    configure_logging(config.get("log.format"), config.get("log.level"))
    cpus = parse_cpus(config.get("cpu.affinity"))
    if cpus:
        # Before the event loop and its threads start: they inherit it (broker/cpu_affinity.py).
        try:
            pin_process(cpus)
        except OSError as exc:  # a CPU this machine does not have (or may not use)
            print(f"odradek: cpu.affinity {sorted(cpus)}: {exc}", file=sys.stderr)
            return 2
    try:
        import uvloop
    except ImportError:
        runner = asyncio.run
    else:
        runner = uvloop.run
    try:
        runner(Server(config).serve_forever())
    except ConfigError as exc:  # settings only checked at start, such as a listener's TLS files
        print(f"odradek: {exc}", file=sys.stderr)
        return 2
    except StorageUnavailableError as exc:  # PostgreSQL unreachable, its schema too new, a finalized level unsupported
        print(f"odradek: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
