from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import replace
from typing import Any

import pytest

from broker.config import Config
from coordinator.group.api import JoinMember, JoinResult, SyncMember, SyncResult
from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator
from coordinator.log import MemoryCoordinatorLog
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from storage.clock import ManualClock


def subscription(*topics: str) -> bytes:
    return b"\x00\x00" + ConsumerProtocolSubscription(topics=list(topics)).encode(0)


def group_config(**overrides: Any) -> GroupConfig:
    """The broker's defaults (its config table), with these fields changed."""
    return replace(GroupConfig.from_config(Config()), **overrides)


class Harness:
    """A coordinator on an in-memory log and a manual clock; nothing here sleeps."""

    def __init__(self, **config: Any) -> None:
        self.clock = ManualClock()
        self.log = MemoryCoordinatorLog(4)
        settings: dict[str, Any] = {"initial_rebalance_delay_ms": 0, "min_session_timeout_ms": 1000}
        settings.update(config)
        self.coord = GroupCoordinator(self.log, self.clock, group_config(**settings))

    async def settle(self) -> None:
        for _ in range(20):
            await asyncio.sleep(0)
        await self.coord.settle()
        for _ in range(5):
            await asyncio.sleep(0)

    async def advance(self, ms: int) -> None:
        self.clock.advance(ms)
        self.coord.tick()
        await self.settle()

    def join(
        self,
        group: str = "g",
        member: str = "",
        *,
        instance: str | None = None,
        protocols: list[tuple[str, bytes]] | None = None,
        protocol_type: str = "consumer",
        session: int = 10_000,
        rebalance: int = 20_000,
        require_known: bool = False,
        client_id: str = "client",
    ) -> asyncio.Task[JoinResult]:
        return asyncio.ensure_future(self.coord.join_group(JoinMember(
            group, member, instance, require_known, client_id, "/127.0.0.1", rebalance, session, protocol_type,
            protocols if protocols is not None else [("range", subscription("t"))],
        )))

    def sync(
        self, group: str, generation: int, member: str, assignments: dict[str, bytes] | None = None,
        *, instance: str | None = None, protocol_type: str | None = None, protocol_name: str | None = None,
    ) -> asyncio.Task[SyncResult]:
        return asyncio.ensure_future(self.coord.sync_group(SyncMember(
            group, generation, member, instance, protocol_type, protocol_name, assignments or {},
        )))

    async def stable_group(self, n: int = 1, group: str = "g", **kw: Any) -> list[JoinResult]:
        """n members joined and synced; returns their join results (leader first)."""
        tasks = [self.join(group, **kw) for _ in range(n)]
        await self.settle()
        await self.advance(0)
        results = [await t for t in tasks]
        leader = next(r for r in results if r.leader_id == r.member_id)
        syncs = [self.sync(group, r.generation_id, r.member_id,
                           {m: m.encode() for m, _, _ in leader.members} if r is leader else None)
                 for r in results]
        await self.settle()
        for s in syncs:
            assert (await s).error == 0
        return [leader] + [r for r in results if r is not leader]


@pytest.fixture
async def h() -> Harness:
    harness = Harness()
    await harness.coord.load()
    return harness


async def done(aw: Awaitable[Any]) -> Any:
    return await asyncio.wait_for(aw, 1)
