"""A segment's aborted-transaction index (`.txnindex`), in Kafka's on-disk format.

Each entry is 34 bytes: version int16 (0), producer_id int64, first_offset int64,
last_offset int64 (the ABORT marker) and last_stable_offset int64 (the LSO once this
transaction completed). Entries are appended in marker order, so last_offset grows
along the file. The file is only created once a segment gets its first entry.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass

from .files import ByteStore, FileStore, MemoryStore

ENTRY = struct.Struct(">hqqqq")
ENTRY_SIZE = ENTRY.size  # 34
VERSION = 0


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int

    def encode(self) -> bytes:
        return ENTRY.pack(VERSION, self.producer_id, self.first_offset, self.last_offset, self.last_stable_offset)


class TransactionIndex:
    """Entries kept in memory (they are few) and mirrored to a byte store."""

    def __init__(self, path: str | None) -> None:
        self._path = path
        self._store: ByteStore | None = MemoryStore() if path is None else None
        self.entries: list[AbortedTxn] = []

    def _open(self, create: bool) -> ByteStore | None:
        if self._store is None and self._path is not None and (create or os.path.exists(self._path)):
            self._store = FileStore(self._path)
        return self._store

    def load(self) -> None:
        """Read the entries back; a torn or unknown tail entry is cut off."""
        self.entries = []
        store = self._open(create=False)
        if store is None:
            return
        data = store.read(0, store.size)
        valid = 0
        for pos in range(0, len(data) - ENTRY_SIZE + 1, ENTRY_SIZE):
            version, pid, first, last, lso = ENTRY.unpack_from(data, pos)
            if version != VERSION:
                break
            self.entries.append(AbortedTxn(pid, first, last, lso))
            valid = pos + ENTRY_SIZE
        if valid != store.size:
            store.truncate(valid)

    def append(self, entry: AbortedTxn) -> None:
        store = self._open(create=True)
        assert store is not None
        store.append(entry.encode())
        self.entries.append(entry)

    def truncate_from(self, offset: int) -> None:
        """Drop the entries whose marker is at or after `offset` (they will be rebuilt)."""
        keep = len(self.entries)
        while keep and self.entries[keep - 1].last_offset >= offset:
            keep -= 1
        if keep == len(self.entries):
            return
        del self.entries[keep:]
        store = self._open(create=False)
        if store is not None:
            store.truncate(keep * ENTRY_SIZE)

    def collect(self, start_offset: int, end_offset: int) -> tuple[list[AbortedTxn], bool]:
        """Entries overlapping [start_offset, end_offset), and whether later segments can
        hold no more: Kafka's collectAbortedTxns, which stops at the first entry whose
        LSO reaches the end (every later transaction starts at or after that LSO)."""
        found: list[AbortedTxn] = []
        for entry in self.entries:
            if entry.last_offset >= start_offset and entry.first_offset < end_offset:
                found.append(entry)
            if entry.last_stable_offset >= end_offset:
                return found, True
        return found, False

    def rename(self, renamed: Callable[[str | None], str | None]) -> None:
        """Follow the segment's files to a new name: `renamed` moves the file (when it
        exists) and returns its new path."""
        self._path = renamed(self._path)
        if isinstance(self._store, FileStore) and self._path is not None:
            self._store.path = self._path

    def sync(self) -> None:
        if self._store is not None:
            self._store.sync()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def delete(self) -> None:
        store = self._open(create=False)
        if store is not None:
            store.delete()
        self._store = None if self._path is not None else MemoryStore()
        self.entries = []
