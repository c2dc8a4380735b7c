"""Wake-ups for requests that wait on new data (Fetch long polls)."""

from __future__ import annotations

import asyncio


class AppendSignal:
    """Fires whenever records are appended anywhere; waiters then re-check their own partitions.

    One shared future per round keeps notify O(1) however many fetches are parked.
    """

    def __init__(self) -> None:
        self._round: asyncio.Future[None] | None = None

    def notify(self) -> None:
        current = self._round
        if current is not None:
            self._round = None
            if not current.done():
                current.set_result(None)

    async def wait(self, timeout: float) -> bool:
        """Waits for the next append or the timeout; True if woken by an append."""
        if timeout <= 0:
            return False
        if self._round is None:
            self._round = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(asyncio.shield(self._round), timeout)
        except TimeoutError:
            return False
        return True
