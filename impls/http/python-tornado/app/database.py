"""The PostgreSQL pool of the database routes (SPEC §8): asyncpg's `Pool`, one per process.

asyncpg is an asyncio driver, and Tornado's IOLoop is an asyncio loop (here
uvloop), so its futures are awaited in Tornado's handlers directly.
`CONCUR_DB_POOL` bounds the connections of all processes together, so each
forked process makes a pool of its share (`pool_share`), by the task id
`fork_processes` returned it: all of the pool in one process. The pool opens no
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
from tornado.web import HTTPError

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


def pool_share(total: int, processes: int, index: int) -> int:
    """Process `index`'s connections (0 <= index < processes; spec/POLICIES.md §6.3): `total // processes`,
    plus one for each of the first `total % processes`, so the processes hold all of `total` and never more
    (16 over 3: 6, 5, 5). At least one: a pool below the process count (concur never gives one) would leave
    a process none, and asyncpg's pool cannot be empty."""
    return max(1, total // processes + (1 if index < total % processes else 0))


class Database:
    """The process' pool, or why there is none (no `CONCUR_DB_URL`)."""

    def __init__(self, pool: asyncpg.Pool | None, absent: str = "") -> None:
        self.pool = pool
        self.absent = absent

    @classmethod
    async def open(cls, settings: Settings, index: int = 0) -> Database:
        """The pool of process `index` (`fork_processes`' task id; 0 when one process serves)."""
        if not settings.db_url:
            return cls(None, "CONCUR_DB_URL is not set")
        pool = await asyncpg.create_pool(
            settings.db_url,
            min_size=0,
            max_size=pool_share(settings.db_pool, settings.cores, index),
            timeout=CONNECT_TIMEOUT_S,
        )
        return cls(pool)

    async def close(self) -> None:
        if self.pool is None:
            return
        try:
            await asyncio.wait_for(self.pool.close(), CONNECT_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.pool.terminate()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """One pooled connection for all of a request's statements; 503 when the database is out of reach."""
        if self.pool is None:
            raise HTTPError(503, f"database unavailable: {self.absent}")
        try:
            async with self.pool.acquire() as conn:
                yield conn
        except UNREACHABLE as exc:
            raise HTTPError(503, f"database unavailable: {type(exc).__name__}: {exc}") from exc
