"""`python -m broker.healthcheck`, the container's HEALTHCHECK: healthy only after a real
ApiVersions round trip, not merely because a port accepts connections."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

from tests.broker_process import ROOT, BrokerProcess, free_port


def probe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "broker.healthcheck", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=30, env={**os.environ, **(env or {})},
    )


def test_healthy_against_the_broker(broker: BrokerProcess) -> None:
    result = probe(broker.bootstrap)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("healthy: ")


def test_address_taken_from_the_listeners_setting(broker: BrokerProcess) -> None:
    result = probe(env={"ODRADEK_LISTENERS": f"PLAINTEXT://0.0.0.0:{broker.port}"})
    assert result.returncode == 0, result.stderr


def test_unhealthy_when_nothing_listens() -> None:
    result = probe(f"127.0.0.1:{free_port()}")
    assert result.returncode == 1
    assert "unhealthy" in result.stderr


def test_unhealthy_when_the_port_answers_but_not_kafka() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def accept_and_close() -> None:
            conn, _ = server.accept()
            conn.recv(1024)
            conn.close()

        thread = threading.Thread(target=accept_and_close, daemon=True)
        thread.start()
        result = probe(f"127.0.0.1:{port}")
        thread.join(10)
    assert result.returncode == 1
    assert "closed" in result.stderr
