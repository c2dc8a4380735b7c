"""The base of every generated top-level message."""

from __future__ import annotations

from typing import ClassVar, Self

from protocol.codec import RawTaggedField, Reader, UnsupportedVersionError, Writer


def _tag_order(f: RawTaggedField) -> int:
    return f.tag


class Message:
    """Class-level facts and whole-buffer helpers shared by every generated message."""

    __slots__ = ()

    NAME: ClassVar[str]
    API_KEY: ClassVar[int]
    MIN_VERSION: ClassVar[int]
    MAX_VERSION: ClassVar[int]
    FLEXIBLE_MIN_VERSION: ClassVar[int]
    LATEST_VERSION_UNSTABLE: ClassVar[bool]

    @classmethod
    def read(cls, r: Reader, v: int) -> Self:
        raise NotImplementedError

    def write(self, w: Writer, v: int) -> None:
        raise NotImplementedError

    @classmethod
    def check_version(cls, version: int) -> None:
        if not cls.MIN_VERSION <= version <= cls.MAX_VERSION:
            raise UnsupportedVersionError(
                f"{cls.NAME} v{version} is outside v{cls.MIN_VERSION}-v{cls.MAX_VERSION}"
            )

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        return version >= cls.FLEXIBLE_MIN_VERSION

    @classmethod
    def decode(cls, buf: bytes | bytearray | memoryview, version: int) -> Self:
        """Decodes a whole message body; bytes after the message are ignored, as Kafka does."""
        cls.check_version(version)
        return cls.read(Reader(buf), version)

    def encode(self, version: int) -> bytes:
        self.check_version(version)
        w = Writer()
        self.write(w, version)
        return w.getvalue()
