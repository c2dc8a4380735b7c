"""What the coordinators read from the broker's config table (`broker/config.py`, which
holds every name with Kafka's default), as a protocol so this layer does not import the
broker's."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Settings(Protocol):
    """The typed getters of `broker.config.Config` the coordinators use."""

    @property
    def data_dir(self) -> Path: ...

    def get_int(self, name: str) -> int: ...

    def get_bool(self, name: str) -> bool: ...

    def get_ms(self, name: str) -> int: ...

    def get_str(self, name: str) -> str: ...
