"""The levels of the `metadata.version` feature as Kafka 4.0 names them (its MetadataVersion
enum, KIP-778): level -> release name, and whether the level changed the metadata records,
which decides whether a downgrade across it could lose metadata. The broker checks updates
with it; `odradek features` prints the names as kafka-features.sh does."""

from __future__ import annotations

FEATURE_NAME = "metadata.version"

# level: (name, did the metadata change at this level), Kafka 4.0's production levels.
LEVELS: dict[int, tuple[str, bool]] = {
    7: ("3.3-IV3", True),
    8: ("3.4-IV0", True),
    9: ("3.5-IV0", False),
    10: ("3.5-IV1", False),
    11: ("3.5-IV2", True),
    12: ("3.6-IV0", False),
    13: ("3.6-IV1", True),
    14: ("3.6-IV2", True),
    15: ("3.7-IV0", True),
    16: ("3.7-IV1", False),
    17: ("3.7-IV2", True),
    18: ("3.7-IV3", False),
    19: ("3.7-IV4", False),
    20: ("3.8-IV0", False),
    21: ("3.9-IV0", False),
    22: ("4.0-IV0", False),
    23: ("4.0-IV1", True),
    24: ("4.0-IV2", False),
    25: ("4.0-IV3", False),
}
MINIMUM = min(LEVELS)
LATEST = max(LEVELS)  # MetadataVersion.LATEST_PRODUCTION, what a new cluster is formatted with


def name(level: int) -> str:
    """The release name of a level ("4.0-IV3"), or the number for a level Kafka 4.0 lacks."""
    known = LEVELS.get(level)
    return known[0] if known else str(level)


def metadata_changed(high: int, low: int) -> bool:
    """MetadataVersion.checkIfMetadataChanged: whether a level in (low, high] changed the
    metadata records, so that going from one to the other could lose some."""
    return any(LEVELS.get(level, ("", True))[1] for level in range(low + 1, high + 1))
