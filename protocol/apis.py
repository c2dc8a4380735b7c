"""What the broker needs to know of each API: its message classes and header versions."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.message import Message

API_VERSIONS_KEY = 18


@dataclass(frozen=True)
class ApiSpec:
    key: int
    name: str
    request: type[Message]
    response: type[Message]

    @property
    def min_version(self) -> int:
        return self.request.MIN_VERSION

    @property
    def max_version(self) -> int:
        return self.request.MAX_VERSION

    def request_header_version(self, version: int) -> int:
        return 2 if self.request.is_flexible(version) else 1

    def response_header_version(self, version: int) -> int:
        # ApiVersions answers with header v0 at every version, so that a client that does not
        # yet know the broker's versions can always read the header (KIP-511).
        if self.key == API_VERSIONS_KEY:
            return 0
        return 1 if self.response.is_flexible(version) else 0
