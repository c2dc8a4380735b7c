"""The built wheel, as `pip install` gives it to a user: every package of the project but
the tests and benchmarks, the `odradek` command (broker and admin CLI) and the pytest plugin
as entry points, the version and extras of pyproject.toml, and the installed copy working."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import tomllib
import zipfile
from collections.abc import Iterator
from configparser import ConfigParser
from email.parser import Parser
from pathlib import Path

import pytest

from odradek.testing import free_port

ROOT = Path(__file__).resolve().parents[3]
# Development tools run from a checkout, not shipped.
NOT_SHIPPED = {"tests", "bench", "faults", "fuzz"}
# What a source checkout holds that is no part of a build.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "data", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)
USER_FILE = Path(__file__).with_name("user_test_file.py")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy, so the build leaves nothing in the checkout.
    src = tmp_path_factory.mktemp("src") / "odradek"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCE)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                   check=True, capture_output=True, timeout=300)
    [built] = out.glob("odradek-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return target


def _project() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _source_packages() -> set[str]:
    return {
        str(p.parent.relative_to(ROOT)).replace("/", ".")
        for p in ROOT.rglob("__init__.py")
        if p.relative_to(ROOT).parts[0] not in NOT_SHIPPED and not any(
            part.startswith(".") or part in ("build", "data") for part in p.relative_to(ROOT).parts)
    }


def test_wheel_holds_every_package_and_no_tests(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n.removesuffix("/__init__.py").replace("/", ".") for n in names if n.endswith("/__init__.py")}
    assert shipped == _source_packages()
    assert not any(n.startswith(("tests/", "bench/", "faults/", "fuzz/")) for n in names)
    assert {"odradek/py.typed", "protocol/py.typed"} <= set(names)
    # The PostgreSQL engine migrates its schema from files shipped with it.
    migrations = sorted(p.name for p in (ROOT / "storage" / "postgres" / "migrations").glob("*.sql"))
    assert migrations and {f"storage/postgres/migrations/{m}" for m in migrations} <= set(names)


def test_wheel_metadata_and_entry_points(wheel: Path) -> None:
    z = zipfile.ZipFile(wheel)
    info = next(n.split("/")[0] for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = Parser().parsestr(z.read(f"{info}/METADATA").decode())
    project = _project()
    assert metadata["Name"] == "odradek"
    assert metadata["Version"] == project["version"]
    assert set(metadata.get_all("Provides-Extra") or []) == set(project["optional-dependencies"])
    entry_points = ConfigParser()
    entry_points.read_string(z.read(f"{info}/entry_points.txt").decode())
    assert dict(entry_points["console_scripts"]) == {"odradek": "odradek.__main__:main"}
    assert dict(entry_points["pytest11"]) == {"odradek.pytest_plugin": "odradek.pytest_plugin"}


@pytest.fixture
def installed_env(installed: Path) -> dict[str, str]:
    # The wheel's packages first; its dependencies come from this interpreter's environment.
    return {"PYTHONPATH": str(installed), "PATH": f"{installed / 'bin'}:/usr/bin:/bin", "HOME": str(installed)}


def test_installed_command_serves_and_administers(installed: Path, installed_env: dict[str, str],
                                                  tmp_path: Path) -> None:
    command = str(installed / "bin" / "odradek")
    # Run from elsewhere than the checkout, whose packages would shadow the installed ones.
    version = subprocess.run([command, "--version"], env=installed_env, capture_output=True, text=True, timeout=60,
                             cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"odradek {_project()['version']}\n")

    port = free_port()
    server = subprocess.Popen(
        [command, "serve", "--listeners", f"PLAINTEXT://127.0.0.1:{port}", "--log-dirs", str(tmp_path / "data")],
        env=installed_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        for _ in _attempts():
            health = subprocess.run([command, "--bootstrap-server", f"127.0.0.1:{port}", "health"],
                                    env=installed_env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
            if health.returncode == 0:
                break
        assert health.returncode == 0 and health.stdout.startswith("OK: 1 broker(s)"), health.stderr
        where = subprocess.run([sys.executable, "-c", "import broker, odradek; print(broker.__file__, odradek.__file__)"],
                               env=installed_env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert all(path.startswith(str(installed)) for path in where.stdout.split())
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(30) == 0


def _attempts() -> Iterator[int]:
    for i in range(100):
        yield i
        time.sleep(0.1)


def test_installed_pytest_plugin_found_by_its_entry_point(installed_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\nodradek_overrides =\n    num.partitions=3\n")
    shutil.copy(USER_FILE, tmp_path / "test_user.py")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user.py"],
                            cwd=tmp_path, env=installed_env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "2 passed" in result.stdout
