"""bcrypt off the IOLoop, one hash at a time per process (spec/POLICIES.md §2).

The `bcrypt` package releases the GIL while it hashes (its Rust core runs
inside PyO3's `allow_threads`), so a hash on the executor's thread runs
beside the IOLoop. The executor has one thread per process, and a process is
one core's share (`fork_processes(CONCUR_CORES)`), so with N processes at
most N hashes run at once. Requests waiting for the thread are futures in the
executor's queue, served in arrival order, not threads. Both Python entries
queue their hashes this way.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import bcrypt
from tornado.ioloop import IOLoop

HASHES_AT_ONCE = 1


class Hasher:
    def __init__(self, cost: int) -> None:
        self.cost = cost
        self.executor = ThreadPoolExecutor(max_workers=HASHES_AT_ONCE, thread_name_prefix="bcrypt")

    async def hash(self, password: bytes) -> bytes:
        return await IOLoop.current().run_in_executor(self.executor, self._hash, password)

    async def check(self, password: bytes, hashed: bytes) -> bool:
        return await IOLoop.current().run_in_executor(self.executor, bcrypt.checkpw, password, hashed)

    def _hash(self, password: bytes) -> bytes:
        return bcrypt.hashpw(password, bcrypt.gensalt(rounds=self.cost))
