"""The private PostgreSQL server the PostgreSQL engine's tests run on."""

from __future__ import annotations

import asyncpg

from odradek.postgres_server import PostgresServer


async def test_the_server_is_private_durable_and_on_loopback(postgres_server: PostgresServer, postgres_url: str) -> None:
    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval("SHOW fsync") == "on"
        assert await conn.fetchval("SHOW synchronous_commit") == "on"
        assert await conn.fetchval("SHOW listen_addresses") == "127.0.0.1"
        assert await conn.fetchval("SHOW unix_socket_directories") == str(postgres_server.directory)
        assert await conn.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == 0
        assert await conn.fetchval("SELECT current_schema()") == postgres_url.rpartition("search_path=")[2]
    finally:
        await conn.close()


async def test_recycle_wal_leaves_segments_to_reuse(postgres_server: PostgresServer, postgres_url: str) -> None:
    # What the bench's servers do before their brokers start (bench/brokers.py): the WAL
    # written is recycled as segments after the current one, which commits then write into
    # rather than creating a segment each.
    ahead = (
        "SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'"
        " AND name > pg_walfile_name(pg_current_wal_lsn())"
    )
    conn = await asyncpg.connect(postgres_url)
    try:
        postgres_server.recycle_wal(48)
        assert await conn.fetchval(ahead) >= 2
    finally:
        await conn.close()
