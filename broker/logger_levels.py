"""The broker's loggers as Kafka's BROKER_LOGGER config resource shows them (KIP-412): every
Python `logging` logger of the broker process and `root`, each with its effective level under
Kafka's log4j names, which IncrementalAlterConfigs sets and unsets at runtime (Kafka's
RuntimeLoggerManager; nothing is kept across a restart, as in Kafka)."""

from __future__ import annotations

import logging

ROOT = "root"
TRACE = 5  # log4j's TRACE, below Python's DEBUG
# Kafka's LogLevelConfig.VALID_LOG_LEVELS, as its messages list them.
KAFKA_LEVELS = {"TRACE": TRACE, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
                "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}
VALID_LEVELS_TEXT = ", ".join(sorted(KAFKA_LEVELS))


def _kafka_level(level: int) -> str:
    """A Python level under the log4j name of the first level at or above it."""
    for name, value in sorted(KAFKA_LEVELS.items(), key=lambda item: item[1]):
        if level <= value:
            return name
    return "FATAL"


def _logger(name: str) -> logging.Logger:
    return logging.getLogger() if name == ROOT else logging.getLogger(name)


def loggers() -> dict[str, str]:
    """root first, then every logger the process has created, with its effective level."""
    out = {ROOT: _kafka_level(logging.getLogger().getEffectiveLevel())}
    for name, logger in sorted(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            out[name] = _kafka_level(logger.getEffectiveLevel())
    return out


def exists(name: str) -> bool:
    return name == ROOT or isinstance(logging.Logger.manager.loggerDict.get(name), logging.Logger)


def valid_level(level: str | None) -> bool:
    return level in KAFKA_LEVELS


def set_level(name: str, level: str) -> None:
    _logger(name).setLevel(KAFKA_LEVELS[level])


def unset_level(name: str) -> None:
    """The logger follows its parent's level again (Kafka refuses this for root)."""
    _logger(name).setLevel(logging.NOTSET)
