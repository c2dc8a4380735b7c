"""odradek: the umbrella command, the admin CLI and the broker fixture for tests."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def _version() -> str:
    try:
        return version("odradek")
    except PackageNotFoundError:  # a source checkout that was never installed
        return "0+unknown"


__version__ = _version()
