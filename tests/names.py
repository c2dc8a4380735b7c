"""Fresh names for the topics, groups and transactional ids of one test, so tests sharing
a broker never see each other's state."""

from __future__ import annotations

import uuid


def unique(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
