"""One handler per API, and the version ranges they serve."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from broker.context import RequestContext
from protocol.apis import ApiSpec
from protocol.message import Message
from protocol.messages import API_SPECS

Handler = Callable[[RequestContext, Any], Awaitable[Message | None]]


@dataclass(frozen=True)
class Route:
    api: ApiSpec
    handle: Handler
    min_version: int
    max_version: int
    # The lowest version ApiVersions names; below min_version a request is still refused.
    advertised_min_version: int

    def serves(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


class Router:
    def __init__(self) -> None:
        self.routes: dict[int, Route] = {}

    def add(
        self,
        api_key: int,
        handle: Handler,
        *,
        min_version: int | None = None,
        max_version: int | None = None,
        advertised_min_version: int | None = None,
    ) -> None:
        api = API_SPECS[api_key]
        lo = api.min_version if min_version is None else min_version
        hi = api.max_version if max_version is None else max_version
        if not api.min_version <= lo <= hi <= api.max_version:
            raise ValueError(f"{api.name}: v{lo}-v{hi} is outside the spec's v{api.min_version}-v{api.max_version}")
        if api_key in self.routes:
            raise ValueError(f"{api.name} has a handler already")
        adv = lo if advertised_min_version is None else advertised_min_version
        self.routes[api_key] = Route(api, handle, lo, hi, adv)

    def route(self, api_key: int) -> Route | None:
        return self.routes.get(api_key)

    def advertised(self) -> list[tuple[int, int, int]]:
        """(api key, min, max) of every served API, as ApiVersions lists them."""
        return [(k, r.advertised_min_version, r.max_version) for k, r in sorted(self.routes.items())]
