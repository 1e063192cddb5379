"""The PostgreSQL pool of the database routes (SPEC §8): asyncpg's `Pool`, one per worker process.

`CONCUR_DB_POOL` bounds the connections of all processes together, so each of
Uvicorn's workers makes a pool of its share (`pool_share`): the floor of an
equal division, since Uvicorn gives a worker no index by which the first
`CONCUR_DB_POOL % workers` could take one more (spec/POLICIES.md §6.3; the
README says what that leaves unused). The pool opens no
connection at start (`min_size=0`): the server starts and serves its other
routes with the database down, and a connection is opened when a request
first needs one, or again after the database ended it. A request that finds
all of its process' connections taken waits in `Pool.acquire`, a future in
the pool's queue, without a thread.

Every failure to reach the database, whether at connect, at login or in the
middle of a query, is answered 503 with its reason on one line (SPEC §8.4).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from fastapi import HTTPException

from app.config import Settings

# What "the database cannot be reached" raises: a refused or reset socket (OSError),
# a connect that timed out, a refused login or an ended session (PostgresError), and
# asyncpg's own (InterfaceError: a connection closed under a query, a bad URL). A
# query sent on a connection whose end the database has announced but asyncpg has not
# yet processed fails with InternalClientError ("cannot switch to state ..."; seen
# when pg_terminate_backend ends an idle pooled connection); the pool then drops it.
UNREACHABLE = (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.exceptions.InternalClientError)

# asyncpg waits 60 s for a connection by default; SPEC §8.4 wants the 503 within 5 s.
CONNECT_TIMEOUT_S = 4.0


def pool_share(total: int, processes: int) -> int:
    """One process' connections: an equal share of `total`, rounded down so the sum stays within it
    (16 over 3: 5 each, 15 in all). Every worker gets the same: none knows which it is."""
    return max(1, total // processes)


class Database:
    """The process' pool, or why there is none (no `CONCUR_DB_URL`)."""

    def __init__(self, pool: asyncpg.Pool | None, absent: str = "") -> None:
        self.pool = pool
        self.absent = absent

    @classmethod
    async def open(cls, settings: Settings) -> Database:
        if not settings.db_url:
            return cls(None, "CONCUR_DB_URL is not set")
        pool = await asyncpg.create_pool(
            settings.db_url,
            min_size=0,
            max_size=pool_share(settings.db_pool, settings.cores),
            timeout=CONNECT_TIMEOUT_S,
        )
        return cls(pool)

    async def close(self) -> None:
        if self.pool is None:
            return
        try:
            # Uvicorn's graceful shutdown has already waited for the requests in flight.
            await asyncio.wait_for(self.pool.close(), CONNECT_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.pool.terminate()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """One pooled connection for all of a request's statements; 503 when the database is out of reach."""
        if self.pool is None:
            raise HTTPException(503, f"database unavailable: {self.absent}")
        try:
            async with self.pool.acquire() as conn:
                yield conn
        except UNREACHABLE as exc:
            raise HTTPException(503, f"database unavailable: {type(exc).__name__}: {exc}") from exc
