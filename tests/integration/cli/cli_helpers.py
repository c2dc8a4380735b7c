"""Runs the admin CLI as a user does (its `main`, in this process, or the `odradek`
command in a child process) and hands back the exit code and what it printed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from odradek.__main__ import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def cli(capsys: pytest.CaptureFixture[str], bootstrap: str, *args: str) -> Run:
    """`odradek --bootstrap-server BOOTSTRAP --json ARGS...`, in process."""
    capsys.readouterr()
    code = main(["--bootstrap-server", bootstrap, "--json", *args])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def cli_process(*args: str, env: dict[str, str] | None = None) -> Run:
    """`python -m odradek ARGS...` in a child process."""
    proc = subprocess.run([sys.executable, "-m", "odradek", *args], capture_output=True, text=True,
                          timeout=60, env=env)
    return Run(proc.returncode, proc.stdout, proc.stderr)
