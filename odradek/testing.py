"""A real odradek broker in a child process, for tests, benchmarks and fault campaigns: on a
free loopback port, with its own data directory, stopped cleanly (SIGTERM), killed (SIGKILL)
or paused (SIGSTOP), restartable on the same directory to test recovery. `ServerProcess`
runs any other server the same way (bench/brokers.py runs Tansu with it).

    with running_broker(num_partitions=3) as broker:
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)

The pytest plugin (`odradek.pytest_plugin`) offers the same as fixtures.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Self


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def broker_overrides(
    *,
    num_partitions: int | None = None,
    auto_create_topics: bool | None = None,
    transaction_max_timeout_ms: int | None = None,
    transaction_abort_check_interval_ms: int | None = None,
    group_initial_rebalance_delay_ms: int | None = None,
    overrides: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Broker properties for the settings tests change most, by Kafka's names; `overrides`
    sets any other property and wins over the named ones."""
    props: dict[str, str] = {}
    if num_partitions is not None:
        props["num.partitions"] = str(num_partitions)
    if auto_create_topics is not None:
        props["auto.create.topics.enable"] = "true" if auto_create_topics else "false"
    if transaction_max_timeout_ms is not None:
        props["transaction.max.timeout.ms"] = str(transaction_max_timeout_ms)
    if transaction_abort_check_interval_ms is not None:
        props["transaction.abort.timed.out.transaction.cleanup.interval.ms"] = str(
            transaction_abort_check_interval_ms
        )
    if group_initial_rebalance_delay_ms is not None:
        props["group.initial.rebalance.delay.ms"] = str(group_initial_rebalance_delay_ms)
    props.update(overrides or {})
    return props


def wait_until_listening(
    proc: subprocess.Popen[bytes] | None,
    port: int,
    timeout: float,
    log: Callable[[], str],
    host: str = "127.0.0.1",
) -> None:
    """Returns once a server accepts connections on `host:port`; RuntimeError with its log if
    its process (when there is one) exits first, or nothing listens after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode}:\n{log()}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"broker did not start in {timeout}s:\n{log()}")


def _code_root() -> Path | None:
    """The directory the `broker` package is imported from here, so that the child runs the
    same code (a source checkout on `sys.path` wins over an installed copy)."""
    spec = importlib.util.find_spec("broker")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parents[1]


class ServerProcess:
    """A server in a child process that listens on a loopback `port`, its output appended to
    `log_path`: started (returning once it listens), stopped cleanly (SIGTERM), killed
    (SIGKILL), paused (SIGSTOP) and resumed. A subclass says what to run (`command`)."""

    name = "server"

    def __init__(self, port: int, log_path: Path) -> None:
        self.port = port
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.paused = False
        self.starts = 0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        raise NotImplementedError

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        root = _code_root()
        if root is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
        return env

    def start(self, timeout: float = 60.0) -> None:
        """Starts the process and returns once its listener accepts connections (a bound for
        a loaded machine: a broker of a cluster reads every partition from PostgreSQL first)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            # A mark per start, so a log of restarts says which run wrote what.
            log.write(f"=== start {self.starts} at {time.monotonic():.3f}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                self.command(), cwd=_code_root(), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=self._env(),
            )
        self.starts += 1
        self.paused = False
        try:
            wait_until_listening(self.proc, self.port, timeout, self.log)
        except RuntimeError:
            self.kill()
            raise

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        """The last `lines` lines of the log."""
        return "\n".join(self.log().splitlines()[-lines:])

    def log_size(self) -> int:
        """The log's current length in bytes: a mark for `log_since`."""
        try:
            return self.log_path.stat().st_size
        except FileNotFoundError:
            return 0

    def log_since(self, mark: int) -> str:
        """What the process logged after `mark` (from `log_size`), so a test sees only the
        lines its own case produced."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(mark)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no chance to flush or write a clean-shutdown marker."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None
        self.paused = False

    def pause(self) -> None:
        """SIGSTOP: the process holds its connections but answers nothing until `resume`."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        if self.proc is not None and self.paused:
            self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM (resumed first if paused) and wait: a clean shutdown. Returns the exit
        code; killed, and RuntimeError, if it is not done in `timeout` seconds."""
        if self.proc is None:
            return 0
        self.resume()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                self.proc = None
                raise RuntimeError(f"{self.name} ignored SIGTERM:\n{self.log()}") from None
        code = self.proc.returncode
        self.proc = None
        return code

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        """Stops the process, killing it if SIGTERM is ignored."""
        try:
            self.stop()
        finally:
            self.kill()

    def __enter__(self) -> Self:
        if not self.alive:
            self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class OdradekBroker(ServerProcess):
    """One odradek broker process on a PLAINTEXT listener. Without `data_dir` it uses a
    temporary directory of its own, removed by `close` (or on leaving the `with` block).

    `overrides` are broker properties and win over the command line: a `listeners` one adds
    listeners (it must keep `port`'s), an `advertised.listeners` one sends clients elsewhere.
    `python` and `entry` say what runs the broker (`entry` is the arguments after the
    interpreter, for a wrapper of `broker.__main__`); `log_path` defaults to a file beside
    the data directory."""

    name = "broker"

    def __init__(
        self,
        data_dir: Path | None = None,
        overrides: Mapping[str, str] | None = None,
        port: int | None = None,
        *,
        python: str = sys.executable,
        entry: Sequence[str] = ("-m", "broker"),
        log_path: Path | None = None,
    ) -> None:
        self._own_dir: Path | None = None
        if data_dir is None:
            self._own_dir = Path(tempfile.mkdtemp(prefix="odradek-"))
            data_dir = self._own_dir / "data"
        self.data_dir = Path(data_dir).resolve()
        self.overrides = dict(overrides or {})
        self.python = python
        self.entry = list(entry)
        super().__init__(port or free_port(), log_path or self.data_dir.parent / f"{self.data_dir.name}-broker.log")

    def command(self) -> list[str]:
        args = [
            self.python, *self.entry,
            "--listeners", f"PLAINTEXT://127.0.0.1:{self.port}",
            "--log-dirs", str(self.data_dir),
        ]
        for key, value in self.overrides.items():
            args += ["--override", f"{key}={value}"]
        return args

    def close(self) -> None:
        """Stops the broker (killing it if SIGTERM is ignored) and removes its temporary
        directory, if it made one."""
        try:
            super().close()
        finally:
            if self._own_dir is not None:
                shutil.rmtree(self._own_dir, ignore_errors=True)


@contextmanager
def running_broker(
    data_dir: Path | None = None,
    *,
    num_partitions: int | None = None,
    auto_create_topics: bool | None = None,
    transaction_max_timeout_ms: int | None = None,
    transaction_abort_check_interval_ms: int | None = None,
    group_initial_rebalance_delay_ms: int | None = None,
    overrides: Mapping[str, str] | None = None,
    port: int | None = None,
) -> Iterator[OdradekBroker]:
    """A started broker for the `with` block, stopped (and its temporary directory removed)
    afterwards."""
    props = broker_overrides(
        num_partitions=num_partitions,
        auto_create_topics=auto_create_topics,
        transaction_max_timeout_ms=transaction_max_timeout_ms,
        transaction_abort_check_interval_ms=transaction_abort_check_interval_ms,
        group_initial_rebalance_delay_ms=group_initial_rebalance_delay_ms,
        overrides=overrides,
    )
    with OdradekBroker(data_dir, props, port) as broker:
        yield broker


class OdradekCluster:
    """Brokers of one cluster over a PostgreSQL database (`cluster.enable`, docs/cluster.md),
    each a process of its own on a free loopback port with node ids 1..`size`. `overrides`
    apply to every broker (a short `broker.session.timeout.ms` for a test, say);
    `per_node(node_id, port)` adds one broker's own (a second listener on a port of its own,
    say), `port` being its PLAINTEXT listener's."""

    def __init__(
        self,
        postgres_url: str,
        base_dir: Path,
        size: int = 3,
        overrides: Mapping[str, str] | None = None,
        per_node: Callable[[int, int], Mapping[str, str]] | None = None,
    ) -> None:
        self.postgres_url = postgres_url
        common = {"storage.engine": postgres_url, "cluster.enable": "true", **(overrides or {})}
        self.brokers = {}
        for node_id in range(1, size + 1):
            port = free_port()
            own = per_node(node_id, port) if per_node is not None else {}
            self.brokers[node_id] = OdradekBroker(
                base_dir / f"broker-{node_id}", {**common, "node.id": str(node_id), **own}, port
            )

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values())

    def broker(self, node_id: int) -> OdradekBroker:
        return self.brokers[node_id]

    def start(self, timeout: float = 60.0) -> None:
        for broker in self.brokers.values():
            broker.start(timeout)

    def close(self) -> None:
        for broker in self.brokers.values():
            try:
                broker.kill()
            finally:
                broker.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
