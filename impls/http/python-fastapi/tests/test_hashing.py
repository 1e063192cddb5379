"""spec/POLICIES.md §2: one bcrypt hash in progress per process, the others queued in arrival
order, and the event loop free while they run (the `bcrypt` package releases the GIL)."""

from __future__ import annotations

import asyncio
import threading

import bcrypt

from app.hashing import Hasher


class CountingHasher(Hasher):
    """The real hasher, counting how many of its hashes are in progress at once."""

    def __init__(self, cost: int) -> None:
        super().__init__(cost)
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def _hash(self, password: bytes) -> bytes:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            return super()._hash(password)
        finally:
            with self.lock:
                self.running -= 1


def test_one_hash_at_a_time():
    hasher = CountingHasher(6)

    async def three_at_once() -> list[bytes]:
        return await asyncio.gather(*(hasher.hash(f"pw{i}".encode()) for i in range(3)))

    hashes = asyncio.run(three_at_once())
    assert len(set(hashes)) == 3
    assert hasher.most == 1


def test_a_cheap_check_waits_for_the_costly_hash_asked_before_it_and_the_loop_stays_free():
    hasher = Hasher(11)
    cheap = bcrypt.hashpw(b"cheap", bcrypt.gensalt(rounds=4))
    finished: list[str] = []

    async def costly() -> None:
        await hasher.hash(b"costly")
        finished.append("hash")

    async def check() -> None:
        finished.append("check" if await hasher.check(b"cheap", cheap) else "mismatch")

    async def ticking(done: asyncio.Event) -> int:
        ticks = 0
        while not done.is_set():
            await asyncio.sleep(0.005)
            ticks += 1
        return ticks

    async def scenario() -> int:
        done = asyncio.Event()
        ticker = asyncio.create_task(ticking(done))
        await asyncio.gather(costly(), check())
        done.set()
        return await ticker

    ticks = asyncio.run(scenario())
    # On two threads the cost-4 check would finish first; queued, it waits.
    assert finished == ["hash", "check"]
    # A hash holding the GIL would stop the loop for the whole hash: one tick at most, after it.
    assert ticks > 2, f"only {ticks} ticks of the event loop while hashing"
