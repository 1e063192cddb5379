"""bcrypt off the event loop, bounded per process.

The `bcrypt` package releases the GIL while it hashes, so a hash on one of
AnyIO's pool threads runs beside the event loop. A `CapacityLimiter` of one
token per process bounds the hashes: a process is one core's share (Uvicorn
runs one worker per core), so with N workers at most N hashes run at once.
Requests waiting for the token are suspended coroutines, not threads.
"""

from __future__ import annotations

import anyio
import anyio.to_thread
import bcrypt

HASHES_AT_ONCE = 1


class Hasher:
    def __init__(self, cost: int) -> None:
        self.cost = cost
        self.limiter = anyio.CapacityLimiter(HASHES_AT_ONCE)

    async def hash(self, password: bytes) -> bytes:
        return await anyio.to_thread.run_sync(self._hash, password, limiter=self.limiter)

    async def check(self, password: bytes, hashed: bytes) -> bool:
        return await anyio.to_thread.run_sync(bcrypt.checkpw, password, hashed, limiter=self.limiter)

    def _hash(self, password: bytes) -> bytes:
        return bcrypt.hashpw(password, bcrypt.gensalt(rounds=self.cost))
