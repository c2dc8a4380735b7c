"""A private PostgreSQL server for tests, benches and fault runs: `initdb` into a folder
of its own, started by `pg_ctl` on 127.0.0.1 and a free port (its unix socket in that
folder too, never the system's), fsync on, stopped with `pg_ctl -m fast stop`.

    with running_postgres() as pg:
        storage = await PostgresStorage.open(pg.url, ...)

PostgreSQL refuses to run as root: when this process is root, every server command runs
as the `postgres` user (`runuser -u postgres --`), in a folder that user owns, whose
parents it must be able to traverse for as long as the server runs: not under pytest's
base folder, which every pytest starting closes to other users (hence `running_postgres`
makes its own under the system's temporary folder).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from odradek.testing import free_port

SERVER_USER = "postgres"
# Small enough for many servers at once in tests.
TEST_SETTINGS = {"shared_buffers": "32MB"}
START_TIMEOUT_SECONDS = 30


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries here (the Debian `postgresql` package is missing)."""


def find_bin_dir() -> Path:
    """The newest /usr/lib/postgresql/<version>/bin holding `initdb` (or `PG_BIN_DIR`)."""
    explicit = os.environ.get("PG_BIN_DIR")
    if explicit:
        return Path(explicit)
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name or 0)
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresUnavailable("PostgreSQL is not installed (apt-get install -y postgresql)")


@dataclass
class PostgresServer:
    """A server of its own under `directory` (data in `directory/data`, socket beside it)."""

    directory: Path
    port: int = field(default_factory=free_port)
    user: str = "odradek"
    database: str = "odradek"
    bin_dir: Path = field(default_factory=find_bin_dir)
    running: bool = False
    # Elsewhere than `directory/data` (the fault campaign's power-loss disk); the socket
    # and the server log stay in `directory`.
    data_path: Path | None = None
    # Server settings beyond loopback and durability (`-c name=value`); they may override
    # durability only to show that the fault campaign catches it (`pg-async-commit`).
    settings: dict[str, str] = field(default_factory=lambda: dict(TEST_SETTINGS))

    @property
    def data_dir(self) -> Path:
        return self.data_path if self.data_path is not None else self.directory / "data"

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _options(self) -> str:
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.directory),
            "fsync": "on",
            "synchronous_commit": "on",
            "max_connections": "50",
            **self.settings,
        }
        return f"-p {self.port} " + " ".join(f"-c {k}={v}" for k, v in settings.items())

    def _command(self, *args: str) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", SERVER_USER, "--", *args]
        return list(args)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self._command(*args), check=check, capture_output=True, text=True,
                              timeout=START_TIMEOUT_SECONDS * 2)

    def init(self) -> None:
        """initdb (trust authentication: the server listens on loopback only)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, SERVER_USER, SERVER_USER)
            # Its parents must let the server user through (tmp folders are often 0700).
            _open_path_for_others(self.directory)
            if self.data_path is not None:
                _open_path_for_others(self.data_path)
        self._run(
            str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-A", "trust", "-U", self.user,
            "--no-instructions", "-E", "UTF8", "--locale=C",
        )

    def start(self) -> None:
        options = self._options()
        result = self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.directory / "server.log"),
            "-o", options, "-w", "-t", str(START_TIMEOUT_SECONDS), "start", check=False,
        )
        if result.returncode != 0:
            log = (self.directory / "server.log")
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start on {self.address}: {result.stderr.strip()}\n{tail}")
        self.running = True
        self._run(str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
                  self.database)

    def recycle_wal(self, megabytes: int) -> None:
        """Makes this fresh server reuse WAL segments as one that has run a while does:
        writes about `megabytes` of WAL (logical messages: no table, no data page), then
        checkpoints, which renames the segments before it for future use rather than
        removing them. A fresh server creates every segment on the commit that first needs
        it (16 MB zero-filled and fsynced on that commit's path); a server in steady state
        writes into segments its checkpoints recycled (`min_wal_size` keeps at least that
        much of them). For benches (bench/brokers.py), which must not time a fresh server's
        first gigabyte of WAL."""
        psql = [str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
                "-d", self.database, "-q", "-v", "ON_ERROR_STOP=1"]
        segments = max(1, megabytes // 16)
        self._run(*psql, "-c", "SELECT count(pg_logical_emit_message(false, 'odradek-recycle', repeat('x', 16000000)))"
                  f" FROM generate_series(1, {segments})", "-c", "CHECKPOINT")

    def stop(self, mode: str = "fast") -> None:
        """`fast` (clean) or `immediate` (as a crash: recovery at the next start)."""
        if not self.running:
            return
        try:
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", mode, "-w", "stop", check=False)
        except subprocess.TimeoutExpired:  # a shutdown checkpoint too slow: stop it as a crash
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop",
                      check=False)
        self.running = False

    def restart(self) -> None:
        """Start again on the same port and data (after `stop`)."""
        options = self._options()
        self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.directory / "server.log"),
            "-o", options, "-w", "-t", str(START_TIMEOUT_SECONDS), "start",
        )
        self.running = True

    def create_schema(self, name: str) -> str:
        """A new, empty schema in the server's database; returns a URL whose connections
        use it (`search_path`): far cheaper than a database of its own."""
        self._run(str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
                  "-d", self.database, "-q", "-v", "ON_ERROR_STOP=1", "-c", f'CREATE SCHEMA "{name}"')
        return f"{self.url}?search_path={name}"

    def create_database(self, name: str) -> str:
        """A new, empty database on this server; returns its URL."""
        self._run(str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, name)
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{name}"


def _open_path_for_others(path: Path) -> None:
    """Let the server user traverse the folders above `path` (search permission only)."""
    for parent in path.parents:
        if str(parent) in ("/", ""):
            break
        mode = parent.stat().st_mode
        if not mode & 0o001:
            os.chmod(parent, mode | 0o001)


@contextmanager
def running_postgres(directory: Path | None = None) -> Iterator[PostgresServer]:
    """A private server for the duration of the block, its folder removed afterwards
    (unless `directory` was given)."""
    owned = directory is None
    base = Path(tempfile.mkdtemp(prefix="odradek-pg-")) if directory is None else directory
    server = PostgresServer(base)
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop()
        if owned:
            shutil.rmtree(base, ignore_errors=True)
