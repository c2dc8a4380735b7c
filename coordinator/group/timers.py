"""The group coordinator's deadlines (join, sync, heartbeats), named so that a new one
replaces the old: each is a timer of the injected clock (`storage/clock.py`), so tests
move a ManualClock instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import structlog

from storage.clock import Clock, Timer

log = structlog.get_logger("odradek.groups")

# Kafka retries a timer whose write failed after this backoff (its CoordinatorTimer's
# retry, which session and rebalance timeouts use).
RETRY_BACKOFF_MS = 500


# --- the timers' names (Kafka's classicGroupHeartbeatKey, consumerGroupSessionTimeoutKey...) ---
# A key is a tuple, so that no group or member id can make two names collide; its second
# element is always the group id (`group_of`).

def heartbeat_key(group_id: str, member_id: str) -> Hashable:
    """A classic member's session (or a pending member's wait for its second JoinGroup)."""
    return ("heartbeat", group_id, member_id)


def join_key(group_id: str) -> Hashable:
    """A classic group's join phase (the initial delay, then the rebalance timeout)."""
    return ("join", group_id)


def sync_key(group_id: str) -> Hashable:
    """A classic group's wait for its members' SyncGroup."""
    return ("sync", group_id)


def consumer_session_key(group_id: str, member_id: str) -> Hashable:
    """A consumer group member's session (Kafka's consumerGroupSessionTimeoutKey)."""
    return ("consumer-session", group_id, member_id)


def consumer_revocation_key(group_id: str, member_id: str) -> Hashable:
    """A consumer group member's time to revoke (Kafka's consumerGroupRebalanceTimeoutKey)."""
    return ("consumer-revoke", group_id, member_id)


def group_of(key: Hashable) -> str | None:
    """The group a timer named by one of the functions above belongs to."""
    if isinstance(key, tuple) and len(key) >= 2 and isinstance(key[1], str):
        return key[1]
    return None


class NamedTimers:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._live: dict[Hashable, Timer] = {}

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> None:
        """Set (or replace) the timer named `key`."""
        self.cancel(key)
        timer: Timer | None = None

        def fire() -> None:
            if self._live.get(key) is timer:
                del self._live[key]
            try:
                action()
            except Exception:
                log.exception("group coordinator timer failed", timer=key)

        timer = self._clock.call_later(delay_ms, fire)
        self._live[key] = timer

    def active(self, key: Hashable) -> bool:
        return key in self._live

    def cancel(self, key: Hashable) -> None:
        timer = self._live.pop(key, None)
        if timer is not None:
            timer.cancel()

    def cancel_matching(self, wanted: Callable[[Hashable], bool]) -> None:
        """Cancel every timer whose name `wanted` picks (those of an unloaded partition)."""
        for key in [k for k in self._live if wanted(k)]:
            self.cancel(key)

    def cancel_all(self) -> None:
        for key in list(self._live):
            self.cancel(key)
